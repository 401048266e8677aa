"""A release benchmarked against two of its route's live endpoints.

The flow: propose the release naming its endpoints (`endpoints: {"baseline": "prod-eu",
"candidate": "canary"}`); it waits in `proposed`, because only now does it have an id for
the canary to expect. Deploy the candidate on the canary and point the endpoint at it
(`expects: release:<id>`); then start the benchmark (`POST releases/{id}/benchmark`). Both
endpoints are probed first: the baseline must serve the route's active version (the
release's baseline) and the candidate the release's candidate; a drifted one refuses the
benchmark with the reason and the release keeps waiting. The runs are `openai` runs like
any other, concluded by the gate like any other; when they end, both endpoints are probed
again, and a drift meanwhile fails the release with the reason (its results measured
something else).

releases_app sits above live_app: this flow calls live's probe and endpoint lookups
directly (`live_app.services.runs.probed_arms`, `endpoint_named`); the re-probe after the
benchmark is `releases_app.services.endpoints.endpoint_drift_after`.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from kernel.errors import Conflict, FieldError, NotFound
from live_app.models import Endpoint
from live_app.services.runs import arm_engine, endpoint_named, probed_arms
from releases_app.choices import ARMS, ReleaseState
from releases_app.models import Release
from releases_app.selectors import arm_expectation
from releases_app.services.endpoints import checked_endpoint_names
from releases_app.services.proposals import release_start_benchmark


def _expectation_errors(release: Release, endpoints: dict[str, Endpoint]) -> list[FieldError]:
    errors = []
    for arm, endpoint in endpoints.items():
        want = arm_expectation(arm, release)
        if endpoint.expectation != want:
            errors.append(
                FieldError(
                    f"endpoints.{arm}",
                    f"{endpoint.name} expects {endpoint.expects}; the {arm} endpoint of release "
                    f"{release.pk} expects {want} (PATCH its expects)",
                )
            )
    return errors


def _refused(release: Release, who: Actor, reason: str, code: str) -> Conflict:
    """The refusal is on the release's record (its timeline shows why it still waits),
    committed before the 409 is raised."""
    with transaction.atomic():
        audit_record(
            actor=who,
            action="release.benchmark_refused",
            obj_type="release",
            obj_id=release.pk,
            route=release.route,
            after={"state": release.state, "endpoints": release.endpoints},
            reason=reason,
        )
    return Conflict(reason, code=code)


def release_benchmark_endpoints(
    *,
    release: Release | int,
    actor: Actor | Any,
    baseline: str | None = None,
    candidate: str | None = None,
) -> Release:
    """Start a waiting release's benchmark on its live endpoints (named at proposal, or
    here, which replaces them). 409 when the release doesn't wait, when an endpoint
    expects something else, or when a probe finds it drifted or can't read it at all."""
    who = as_actor(actor)
    require_role(who, "operator")
    release_id = release.pk if isinstance(release, Release) else int(release)
    found = Release.objects.with_versions().filter(pk=release_id).first()
    if found is None:
        raise NotFound(f"No release {release_id}.")
    ensure_route_access(who, found.route)
    if found.state != ReleaseState.PROPOSED:
        raise Conflict(
            f"Release {found.pk} is {found.state}: only a proposed release waits for its endpoints.",
            code="release_not_waiting",
        )
    given = {"baseline": baseline, "candidate": candidate}
    if any(given.values()):
        names = checked_endpoint_names(
            route=found.route, names={a: given[a] or found.endpoints.get(a) for a in ARMS}
        )
    elif found.endpoints:
        names = dict(found.endpoints)
    else:
        raise Conflict(
            f"Release {found.pk} names no endpoints: give baseline and candidate.",
            code="release_names_no_endpoints",
        )
    endpoints = {arm: endpoint_named(found.route, names[arm], f"endpoints.{arm}") for arm in ARMS}
    wrong = _expectation_errors(found, endpoints)
    if wrong:
        raise _refused(found, who, "; ".join(e.message for e in wrong), "endpoint_expects_other")
    try:
        arms = probed_arms(endpoints, actor=who)  # network: outside any transaction
    except Conflict as exc:
        raise _refused(found, who, exc.detail, exc.code) from None
    stale = [
        f"{arms[arm].endpoint.name} serves version {arms[arm].version.number}, the release's {arm} is "
        f"{want.number if want else None}"
        for arm, want in (("baseline", found.baseline_version), ("candidate", found.candidate_version))
        if want is None or arms[arm].version.pk != want.pk
    ]
    if stale:
        reason = "; ".join(stale) + " (the route's active version changed since the proposal: propose again)"
        raise _refused(found, who, reason, "release_baseline_stale")
    engines = {arm: arm_engine(a.endpoint, a.version.document, actor=who) for arm, a in arms.items()}
    return release_start_benchmark(release=found.pk, actor=who, endpoints=engines, endpoint_names=names)
