"""A person's decisions on a release: approve (and activate), reject, cancel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from accounts_app.permissions import require_role
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from benchmarks_app.services import release_runs_cancel
from contracts_app.models import Route
from contracts_app.services import route_activate
from kernel.errors import Conflict, DomainError, FieldError
from kernel.text import JUSTIFICATION_MAX, checked_text, visible_length
from releases_app.choices import MIN_JUSTIFICATION_LENGTH, DecisionKind, GateVerdict, ReleaseState
from releases_app.guards import check_may_approve, check_may_cancel, check_may_reject
from releases_app.models import Decision, Release
from releases_app.services.transitions import (
    check_if_match,
    integrity_conflict,
    lock_release,
    move,
    require_reason,
)


def record_decision(
    release: Release,
    kind: str,
    *,
    actor: Actor,
    reason: str,
    override: bool = False,
    justification: str = "",
) -> Decision:
    try:
        with transaction.atomic():
            return Decision.objects.create(
                release=release,
                kind=kind,
                decided_by=actor.user,
                actor_label=actor.label,
                proposed_by_id=release.proposed_by_id,
                reason=reason,
                override=override,
                justification=justification,
            )
    except IntegrityError as exc:
        raise integrity_conflict(
            exc, f"The {kind} decision was refused by the database.", "decision_refused"
        ) from exc


def _check_override(release: Release, override: bool, justification: str) -> str:
    justification = checked_text(justification, field="justification", max_length=JUSTIFICATION_MAX)
    # Measured as a reader sees it: 30 zero-width spaces are no justification.
    shown = visible_length(justification)
    if release.gate_verdict == GateVerdict.FAIL:
        if not override:
            raise Conflict(
                f'The gate failed for release {release.pk}: approving it needs "override": true and a '
                f"justification of at least {MIN_JUSTIFICATION_LENGTH} characters.",
                code="override_required",
            )
        if shown < MIN_JUSTIFICATION_LENGTH:
            raise DomainError(
                "The request is invalid; see errors.",
                errors=[
                    FieldError(
                        "justification",
                        f"overriding a failed gate needs a justification of at least "
                        f"{MIN_JUSTIFICATION_LENGTH} characters (got {shown} visible)",
                    )
                ],
            )
    elif override:
        raise DomainError(
            "The request is invalid; see errors.",
            errors=[
                FieldError("override", f"nothing to override: the gate verdict is {release.gate_verdict}")
            ],
        )
    return justification


def _activate(route: Route, release: Release, *, actor: Actor) -> None:
    """Make the approved release's candidate the route's active version; the release that
    was active before is superseded. Runs in the approval's transaction with the route
    row locked, so the route always has exactly one active version."""
    previous = Release.objects.select_for_update().filter(route=route, state=ReleaseState.ACTIVE).first()
    if previous is not None:
        previous.route = route
        move(previous, "supersede", actor=actor, extra_after={"by_release": release.pk})
    old_version = route_activate(route=route, version=release.candidate_version)
    move(
        release,
        "activate",
        actor=actor,
        extra_after={
            "route_active_version": release.candidate_version.number,
            "previous_version": old_version,
        },
    )


def release_approve(
    *,
    release: Release | int,
    actor: Actor | Any,
    reason: str,
    override: bool = False,
    justification: str = "",
    expected_lock: int | None = None,
) -> Release:
    """Approve a release awaiting review and activate it, atomically. Four eyes: the
    proposer can't approve (403; the database refuses it too). A failed gate needs
    `override=True` and a justification; both are recorded."""
    who = as_actor(actor)
    require_role(who, "approver")
    reason = require_reason(reason)
    with transaction.atomic():
        route, locked = lock_release(release, actor=who)
        check_if_match(locked, expected_lock)
        check_may_approve(locked, who)
        justification = _check_override(locked, override, justification)
        if route.active_version_id != locked.baseline_version_id:
            raise Conflict(
                f"The active version of {route.slug!r} changed since release {locked.pk} was proposed; "
                "cancel it and propose again against the current version.",
                code="baseline_changed",
            )
        record_decision(
            locked,
            DecisionKind.APPROVE,
            actor=who,
            reason=reason,
            override=override,
            justification=justification,
        )
        move(
            locked,
            "approve",
            actor=who,
            reason=reason,
            extra_after={"override": override, "justification": justification} if override else None,
        )
        if override:
            audit_record(
                actor=who,
                action="release.overridden",
                obj_type="release",
                obj_id=locked.pk,
                route=route.slug,
                before={"gate_verdict": locked.gate_verdict},
                after={"override": True, "justification": justification},
                reason=reason,
            )
        _activate(route, locked, actor=who)
    return locked


def _stop_benchmark(release: Release, actor: Actor, reason: str) -> None:
    """A release that leaves `benchmarking` early takes its queued and running runs with it.
    Runs are locked before the release's own audit event takes the chain lock."""
    if release.state != ReleaseState.BENCHMARKING:
        return
    release_runs_cancel(release=release, actor=actor, reason=f"release {release.pk} stopped: {reason}")


def _release_close(
    *,
    release: Release | int,
    actor: Actor | Any,
    reason: str,
    expected_lock: int | None,
    role: str,
    check: Callable[[Release, Actor], None],
    transition: str,
    kind: DecisionKind,
) -> Release:
    """Reject and cancel: the same steps, each with its role, guard and transition."""
    who = as_actor(actor)
    require_role(who, role)
    reason = require_reason(reason)
    with transaction.atomic():
        _, locked = lock_release(release, actor=who)
        check_if_match(locked, expected_lock)
        check(locked, who)
        _stop_benchmark(locked, who, reason)
        # Whose release it was, beside who closed it (the event's actor): an operator may
        # cancel a release someone else proposed.
        proposer = locked.proposed_by.get_username()
        by_proposer = who.user is not None and who.user.pk == locked.proposed_by_id
        move(
            locked,
            transition,
            actor=who,
            reason=reason,
            extra_after={"proposed_by": proposer, "by_proposer": by_proposer},
        )
        record_decision(locked, kind, actor=who, reason=reason)
    return locked


def release_reject(
    *,
    release: Release | int,
    actor: Actor | Any,
    reason: str,
    expected_lock: int | None = None,
) -> Release:
    return _release_close(
        release=release, actor=actor, reason=reason, expected_lock=expected_lock,
        role="approver", check=check_may_reject, transition="reject", kind=DecisionKind.REJECT,
    )  # fmt: skip


def release_cancel(
    *,
    release: Release | int,
    actor: Actor | Any,
    reason: str,
    expected_lock: int | None = None,
) -> Release:
    """Any operator of the release's route may withdraw an open release, whoever proposed it
    (releases_app.guards.check_may_cancel)."""
    return _release_close(
        release=release, actor=actor, reason=reason, expected_lock=expected_lock,
        role="operator", check=check_may_cancel, transition="cancel", kind=DecisionKind.CANCEL,
    )  # fmt: skip
