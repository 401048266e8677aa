"""Who may take which decision on a release, and from which state: one check per
decision, used by its service (after the release is locked) and by the release page to
choose the forms it offers, so the page can never offer what the service would refuse.

Each guard raises the DomainError the service answers with; `release_actions` asks them
all without raising. Checks that depend on what the person types (a reason, an override's
justification) stay in the services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from accounts_app.permissions import require_role
from audit_app.actors import Actor, as_actor
from kernel.errors import Conflict, DomainError
from releases_app.choices import TRANSITIONS, ReleaseState
from releases_app.models import Release


def check_transition(release: Release, name: str) -> None:
    """409 unless the named transition starts from the release's state."""
    transition = TRANSITIONS[name]
    if release.state not in transition.sources:
        allowed = ", ".join(str(s) for s in transition.sources)
        raise Conflict(
            f"Release {release.pk} is {release.state}; '{name}' is only allowed from {allowed}.",
            code="invalid_transition",
        )


def _is_proposer(release: Release, who: Actor) -> bool:
    return who.user is not None and who.user.pk == release.proposed_by_id


def check_may_approve(release: Release, who: Actor) -> None:
    require_role(who, "approver")
    if release.state != ReleaseState.AWAITING_REVIEW:
        raise Conflict(
            f"Release {release.pk} is {release.state}; only a release awaiting review can be approved.",
            code="invalid_transition",
        )
    if who.user is None or _is_proposer(release, who):
        raise DomainError(
            f"Four eyes: the proposer of release {release.pk} can't approve it; another approver must.",
            status=403,
            code="four_eyes",
        )


def check_may_reject(release: Release, who: Actor) -> None:
    require_role(who, "approver")
    check_transition(release, "reject")


def check_may_cancel(release: Release, who: Actor) -> None:
    """Any operator who can reach the release's route may withdraw an open release, theirs
    or another's: an open release blocks every other proposal on its route, and waiting
    for its proposer (away, or a pipeline that died) would block the route's team. Route
    scope is checked when the release is locked (`lock_release`: 404 outside it); the
    audit event names who cancelled and whose release it was."""
    require_role(who, "operator")
    check_transition(release, "cancel")


def check_may_rollback(release: Release, who: Actor) -> None:
    require_role(who, "approver")
    if release.state != ReleaseState.ACTIVE:
        raise Conflict(
            f"Release {release.pk} is {release.state}; "
            "only the active release of a route can be rolled back.",
            code="invalid_transition",
        )


GUARDS: dict[str, Callable[[Release, Actor], None]] = {
    "approve": check_may_approve,
    "reject": check_may_reject,
    "cancel": check_may_cancel,
    "rollback": check_may_rollback,
}


def release_actions(*, release: Release, actor: Actor | Any) -> set[str]:
    """The decisions `actor` could take on `release` as it is now."""
    who = as_actor(actor)
    allowed = set()
    for name, guard in GUARDS.items():
        try:
            guard(release, who)
        except DomainError:
            continue
        allowed.add(name)
    return allowed
