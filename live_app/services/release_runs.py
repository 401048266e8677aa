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
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from live_app.choices import ProbeState
from live_app.models import ENDPOINT_NAME_PATTERN, Endpoint
from live_app.services.probes import endpoints_probe
from live_app.services.runs import ARMS, arm_engine, drift_words, endpoint_named, probed_arms
from releases_app.choices import ReleaseState
from releases_app.models import Release
from releases_app.services import release_start_benchmark
from releases_app.services.endpoints import checked_endpoint_names
from specpact.errors import Conflict, FieldError, NotFound


def expectation(arm: str, release: Release) -> str:
    """What an arm's endpoint must say it serves."""
    return "active" if arm == "baseline" else f"release:{release.pk}"


def _expectation_errors(release: Release, endpoints: dict[str, Endpoint]) -> list[FieldError]:
    errors = []
    for arm, endpoint in endpoints.items():
        want = expectation(arm, release)
        if endpoint.expects != want:
            errors.append(
                FieldError(
                    f"endpoints.{arm}",
                    f"{endpoint.name} expects {endpoint.expects}; the {arm} endpoint of release "
                    f"{release.pk} expects {want} (PATCH its expects)",
                )
            )
    return errors


def _refused(release: Release, who: Actor, reason: str, request_id: str, code: str) -> Conflict:
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
            request_id=request_id,
        )
    return Conflict(reason, code=code)


def release_benchmark_endpoints(
    *,
    release: Release | int,
    actor: Actor | Any,
    baseline: str | None = None,
    candidate: str | None = None,
    request_id: str = "",
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
        raise _refused(found, who, "; ".join(e.message for e in wrong), request_id, "endpoint_expects_other")
    try:
        arms = probed_arms(endpoints, actor=who, request_id=request_id)  # network: outside any transaction
    except Conflict as exc:
        raise _refused(found, who, exc.detail, request_id, exc.code) from None
    stale = [
        f"{arms[arm].endpoint.name} serves version {arms[arm].version.number}, the release's {arm} is "
        f"{want.number if want else None}"
        for arm, want in (("baseline", found.baseline_version), ("candidate", found.candidate_version))
        if want is None or arms[arm].version.pk != want.pk
    ]
    if stale:
        reason = "; ".join(stale) + " (the route's active version changed since the proposal: propose again)"
        raise _refused(found, who, reason, request_id, "release_baseline_stale")
    engines = {arm: arm_engine(a.endpoint, a.version.document) for arm, a in arms.items()}
    return release_start_benchmark(
        release=found.pk, actor=who, endpoints=engines, endpoint_names=names, request_id=request_id
    )


class LiveReleaseEndpoints:
    """releases_app's questions about endpoints (releases_app/services/endpoints.py)."""

    def check(self, *, route: Any, names: dict[str, str]) -> list[FieldError]:
        malformed = [
            FieldError(f"endpoints.{arm}", "1-40 lowercase letters, digits and inner hyphens, e.g. canary")
            for arm, name in names.items()
            if not re.match(ENDPOINT_NAME_PATTERN, name)
        ]
        if malformed:
            return malformed
        found = {e.name: e for e in Endpoint.objects.filter(route=route, name__in=list(names.values()))}
        baseline = found.get(names["baseline"])
        if baseline is None:
            return [FieldError("endpoints.baseline", f"{route.slug!r} has no endpoint {names['baseline']!r}")]
        if baseline.expects != "active":
            return [
                FieldError(
                    "endpoints.baseline",
                    f"{baseline.name} expects {baseline.expects}; "
                    "the baseline endpoint serves the active version",
                )
            ]
        # The candidate may be registered later, or be one that serves something else now
        # (the canary before its redeploy): it is pointed at the release once it exists.
        return []

    def drift_after(self, *, release: Any) -> str | None:
        found = {e.name: e for e in Endpoint.objects.select_related("route").filter(route=release.route_id)}
        named = {arm: found.get(release.endpoints.get(arm)) for arm in ARMS}
        reasons = [
            f"the {arm} endpoint {release.endpoints.get(arm)!r} was deleted during the benchmark"
            for arm, endpoint in named.items()
            if endpoint is None
        ]
        present = {arm: e for arm, e in named.items() if e is not None}
        probes = endpoints_probe(endpoints=list(present.values()))  # both at once: one time limit
        for (arm, endpoint), probe in zip(present.items(), probes, strict=True):
            if probe.state == ProbeState.DRIFTED:
                reasons.append(drift_words(endpoint.name, probe.differences))
            elif probe.version is None or probe.version.pk != _arm_version_id(release, arm):
                reasons.append(f"{endpoint.name} no longer expects the release's {arm}")
        if not reasons:
            return None
        return (
            "the endpoints changed during the benchmark, so its results measured another configuration: "
            + ("; ".join(reasons))
        )


def _arm_version_id(release: Any, arm: str) -> int | None:
    return release.baseline_version_id if arm == "baseline" else release.candidate_version_id
