"""Proposing a release and the benchmark's side of its life: start, gate verdict, failure."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse

from accounts_app.permissions import ensure_route_access, require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from benchmarks_app.services import release_runs_create
from contracts_app.document import diff_documents
from contracts_app.models import ContractVersion, Route
from kernel.errors import Conflict, DomainError, FieldError, NotFound
from kernel.text import REASON_MAX, checked_text
from releases_app.choices import GateVerdict, ReleaseState
from releases_app.models import Release
from releases_app.services.endpoints import checked_endpoint_names
from releases_app.services.transitions import integrity_conflict, lock_release, move, snapshot


def _needs_benchmark(baseline: ContractVersion | None, changes: list[dict[str, Any]]) -> bool:
    """DESIGN §8: a route's first release and a cosmetic-only diff skip the benchmark;
    any other change (route-identity, scope, policy) waits for the gate."""
    if baseline is None:
        return False
    return any(change["impact"] != "cosmetic" for change in changes)


def _request_benchmark(release: Release, actor: Actor, endpoints: dict[str, Any] | None) -> None:
    """Create the release's benchmark runs (and their dispatch) in this transaction."""
    release_runs_create(release=release, actor=actor, endpoints=endpoints)


def release_create(
    *,
    route: Route | str,
    candidate_version: ContractVersion | int,
    actor: Actor | Any,
    reason: str = "",
    endpoints: dict[str, str] | None = None,
) -> Release:
    """Propose moving `route` from its active version to `candidate_version` (a number or
    a ContractVersion of that route). Goes to `awaiting_review` or `benchmarking` at once,
    or, benchmarked against live `endpoints` (`{"baseline": NAME, "candidate": NAME}`),
    stays `proposed` until its candidate endpoint expects it and an operator starts the
    benchmark (live_app). Refused with 409 while another release of the route is open."""
    who = as_actor(actor)
    require_role(who, "operator")
    reason = checked_text(reason, field="reason", max_length=REASON_MAX)
    slug = route.slug if isinstance(route, Route) else str(route)
    number = candidate_version.number if isinstance(candidate_version, ContractVersion) else candidate_version
    with transaction.atomic():
        route_obj = Route.objects.select_for_update().filter(slug=slug).first()
        if route_obj is None:
            raise NotFound(f"No route {slug!r}.")
        ensure_route_access(who, route_obj)
        candidate = ContractVersion.objects.filter(route=route_obj, number=number).first()
        if candidate is None:
            raise DomainError(
                "The request is invalid; see errors.",
                errors=[FieldError("candidate_version", f"route {slug!r} has no version {number}")],
            )
        if route_obj.active_version_id == candidate.pk:
            raise Conflict(f"Version {number} is already active on {slug!r}.", code="already_active")
        open_release = Release.objects.open().filter(route=route_obj).select_related("proposed_by").first()
        if open_release is not None:
            raise _release_open(slug, open_release)
        baseline = route_obj.active_version
        changes = (
            [c.as_dict() for c in diff_documents(baseline.document, candidate.document)]
            if baseline is not None
            else []
        )
        needs_benchmark = _needs_benchmark(baseline, changes)
        names = checked_endpoint_names(route=route_obj, names=endpoints) if endpoints is not None else {}
        if names and not needs_benchmark:
            raise DomainError(
                "The request is invalid; see errors.",
                errors=[FieldError("endpoints", _NO_BENCHMARK_WHY if baseline else _FIRST_RELEASE_WHY)],
            )
        try:
            with transaction.atomic():
                release = Release.objects.create(
                    route=route_obj,
                    baseline_version=baseline,
                    candidate_version=candidate,
                    proposed_by=who.user,
                    state=ReleaseState.PROPOSED,
                    diff=changes,
                    endpoints=names,
                )
        except IntegrityError as exc:
            raced = Release.objects.open().filter(route=route_obj).select_related("proposed_by").first()
            if raced is not None:
                raise _release_open(slug, raced) from exc
            raise integrity_conflict(exc, f"Another release of {slug!r} is open.", "release_open") from exc
        release.route = route_obj
        audit_record(
            actor=who,
            action="release.proposed",
            obj_type="release",
            obj_id=release.pk,
            route=slug,
            after={**snapshot(release), "changes": len(changes), **({"endpoints": names} if names else {})},
            reason=reason,
        )
        if needs_benchmark and names:
            pass  # waits for its endpoints: releases_app.services.endpoint_benchmark starts it
        elif needs_benchmark:
            _start_benchmark(release, who, endpoints=None)
        else:
            move(release, "skip_benchmark", actor=who)
    return release


def release_start_benchmark(
    *,
    release: Release | int,
    actor: Actor | Any = None,
    endpoints: dict[str, dict[str, Any]] | None = None,
    endpoint_names: dict[str, str] | None = None,
) -> Release:
    """proposed → benchmarking, and ask benchmarks_app for the runs: on the engines the
    worker launches, or on given `endpoints` (arm → `openai` engine: base_url, model, …),
    the live endpoints `endpoint_names` (recorded on the release)."""
    with transaction.atomic():
        _, locked = lock_release(release)
        _start_benchmark(locked, as_actor(actor), endpoints=endpoints, names=endpoint_names)
    return locked


def _start_benchmark(
    release: Release,
    actor: Actor,
    *,
    endpoints: dict[str, dict[str, Any]] | None,
    names: dict[str, str] | None = None,
) -> None:
    fields: dict[str, Any] = {"endpoints": names} if names else {}
    move(
        release,
        "start_benchmark",
        actor=actor,
        extra_after=fields or None,
        **fields,
    )
    _request_benchmark(release, actor, endpoints)


def _release_open(slug: str, open_release: Release) -> Conflict:
    """409 for a second proposal: the open release in words and as `open_release` in the
    problem (its id, API URL and state), so a pipeline can wait for it or cancel it."""
    state = ReleaseState(open_release.state).label
    by = open_release.proposed_by.get_username() if open_release.proposed_by else "someone"
    return Conflict(
        f"Release {open_release.pk} of {slug!r} (proposed by {by}) is still {state}; cancel it "
        f"(POST releases/{open_release.pk}/cancel, any operator of the route may) or let it finish "
        "before proposing another.",
        code="release_open",
        extensions={
            "open_release": {
                "id": open_release.pk,
                "url": reverse("api-release", args=[open_release.pk]),
                "state": open_release.state,
            }
        },
    )


_FIRST_RELEASE_WHY = "a route's first release has nothing to benchmark against: leave endpoints out"
_NO_BENCHMARK_WHY = "the change is cosmetic, so the release is not benchmarked: leave endpoints out"


def release_gate_complete(
    *,
    release: Release | int,
    verdict: str,
    gate_result: dict[str, Any] | None = None,
    judged: list[dict[str, Any]] | None = None,
    actor: Actor | Any = None,
) -> Release:
    """The gate's verdict is in: the release is ready for review. A failed gate stays
    reviewable, but approving it then needs an override. `judged`: the results the verdict
    rests on, each with its digest (`ReleaseGateInput.judged`), recorded in the event's
    `after` so that `verify_audit` can tell when one was swapped (releases_app/evidence.py)."""
    if verdict not in GateVerdict.values:
        raise DomainError(
            "The request is invalid; see errors.",
            errors=[FieldError("verdict", f"unknown verdict {verdict!r}; use pass, marginal or fail")],
        )
    who = as_actor(actor)
    with transaction.atomic():
        _, locked = lock_release(release)
        move(
            locked,
            "complete_gate",
            actor=who,
            extra_after={"judged": judged} if judged is not None else None,
            gate_verdict=verdict,
            gate_result=gate_result,
        )
    return locked


def release_fail(*, release: Release | int, reason: str, actor: Actor | Any = None) -> Release:
    """The benchmark could not run (no worker, engine crashed, …): the release ends here."""
    who = as_actor(actor)
    with transaction.atomic():
        _, locked = lock_release(release)
        move(locked, "fail", actor=who, reason=reason, failure_reason=reason)
    return locked
