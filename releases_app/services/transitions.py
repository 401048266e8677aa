"""What every transition shares: locking, the state check, the conditional write and its
audit event. Lock order is always route, then release, then the audit chain, so two
transitions never wait on each other in opposite orders."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError
from django.utils import timezone

from accounts_app.permissions import can_access_route
from audit_app.actors import Actor
from audit_app.services import audit_record
from contracts_app.models import Route
from kernel.errors import Conflict, DomainError, FieldError, NotFound, PreconditionFailed
from kernel.text import REASON_MAX, checked_text, visible_length
from releases_app.choices import TRANSITIONS
from releases_app.guards import check_transition
from releases_app.models import Release


def release_ref(release: Release | int) -> int:
    return release.pk if isinstance(release, Release) else int(release)


def lock_release(release: Release | int, *, actor: Actor | None = None) -> tuple[Route, Release]:
    """The release and its route, both locked until the transaction ends. A scoped token
    or user outside the release's route gets 404, as if the release did not exist."""
    release_id = release_ref(release)
    route_id = Release.objects.filter(pk=release_id).values_list("route_id", flat=True).first()
    if route_id is None:
        raise NotFound(f"Release {release_id} not found.")
    route = Route.objects.select_for_update().get(pk=route_id)
    if actor is not None and not can_access_route(actor, route):
        raise NotFound(f"Release {release_id} not found.")
    locked = (
        Release.objects.select_for_update(of=("self",))
        .select_related("baseline_version", "candidate_version", "proposed_by")
        .get(pk=release_id)
    )
    locked.route = route
    return route, locked


def check_if_match(release: Release, expected_lock: int | None) -> None:
    if expected_lock is not None and expected_lock != release.lock_version:
        raise PreconditionFailed(
            f"Release {release.pk} changed since you read it (it is now {release.state}, "
            f"ETag {release.etag}); read it again and retry."
        )


def require_reason(reason: str) -> str:
    """A reason with something visible in it (zero-width or blank characters alone are no
    reason), at most REASON_MAX characters."""
    reason = checked_text(reason, field="reason", max_length=REASON_MAX)
    if not visible_length(reason):
        raise DomainError("A reason is required.", errors=[FieldError("reason", "give a reason")])
    return reason


def snapshot(release: Release) -> dict[str, Any]:
    return {
        "state": release.state,
        "gate_verdict": release.gate_verdict,
        "baseline_version": release.baseline_version.number if release.baseline_version else None,
        "candidate_version": release.candidate_version.number,
    }


def move(
    release: Release,
    name: str,
    *,
    actor: Actor,
    reason: str = "",
    extra_after: dict[str, Any] | None = None,
    **fields: Any,
) -> Release:
    """Apply the named transition to a locked release: refuse it with 409 from a state it
    doesn't start from, write it with a conditional UPDATE (state and lock_version as read),
    and append its audit event in the same transaction."""
    transition = TRANSITIONS[name]
    check_transition(release, name)
    before = snapshot(release)
    changes = {"state": transition.target, "lock_version": release.lock_version + 1, **fields}
    updated = Release.objects.filter(
        pk=release.pk, state=release.state, lock_version=release.lock_version
    ).update(updated_at=timezone.now(), **changes)
    if updated != 1:  # only possible if someone wrote without the row lock
        raise Conflict(
            f"Release {release.pk} was changed concurrently; read it again.", code="concurrent_change"
        )
    for key, value in changes.items():
        setattr(release, key, value)
    audit_record(
        actor=actor,
        action=transition.action,
        obj_type="release",
        obj_id=release.pk,
        route=release.route.slug,
        before=before,
        after={**snapshot(release), **(extra_after or {})},
        reason=reason,
    )
    return release


def integrity_conflict(exc: IntegrityError, detail: str, code: str) -> Conflict:
    """Constraint violations that the checks above should have caught first: still a 409."""
    return Conflict(f"{detail} ({exc.__cause__ or exc})".strip(), code=code)
