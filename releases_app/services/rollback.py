"""Rolling an active release back to its contract's `rollback.to`."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts_app.permissions import require_role
from audit_app.actors import Actor, as_actor
from contracts_app.document import rollback_target_of, speculation_off
from contracts_app.models import ContractVersion, Route
from contracts_app.services import contract_version_create, route_activate
from kernel.errors import Conflict
from releases_app.choices import DecisionKind
from releases_app.guards import check_may_rollback
from releases_app.models import Release
from releases_app.services.decisions import record_decision
from releases_app.services.transitions import check_if_match, lock_release, move, require_reason


def rollback_target(route: Route, release: Release, *, actor: Actor) -> ContractVersion:
    """The version `rollback.to` of the active (candidate) contract names:
    `previous` → the release's baseline; `version:N` → that version of the route;
    `speculation_off` → the candidate with speculation off, stored as a generated version
    (the same document again reuses the version with its digest)."""
    candidate = release.candidate_version
    target = rollback_target_of(candidate.document)
    if target.kind == "previous":
        if release.baseline_version is None:
            raise Conflict(
                f"Release {release.pk} was the first on {route.slug!r}: there is no previous version "
                "to return to. Upload the version to return to and propose it instead.",
                code="rollback_target_missing",
            )
        return release.baseline_version
    if target.number is not None:  # version:N
        version = ContractVersion.objects.filter(route=route, number=target.number).first()
        if version is None:
            raise Conflict(
                f"The contract's rollback target {target} does not exist on {route.slug!r}.",
                code="rollback_target_missing",
            )
        return version
    upload = contract_version_create(
        slug=route.slug,
        document=speculation_off(candidate.document),
        source_format=ContractVersion.Source.GENERATED,
        actor=actor.user,
    )
    return upload.version


def release_rollback(
    *,
    release: Release | int,
    actor: Actor | Any,
    reason: str,
    expected_lock: int | None = None,
) -> Release:
    """Return the route of an active release to its contract's `rollback.to`, atomically,
    and record why. The release ends `rolled_back`; the route's active version is the target."""
    who = as_actor(actor)
    require_role(who, "approver")
    reason = require_reason(reason)
    with transaction.atomic():
        route, locked = lock_release(release, actor=who)
        check_if_match(locked, expected_lock)
        check_may_rollback(locked, who)
        target = rollback_target(route, locked, actor=who)
        if target.pk == route.active_version_id:
            raise Conflict(
                f"Version {target.number} is already active on {route.slug!r}.", code="already_active"
            )
        old_version = route_activate(route=route, version=target)
        record_decision(locked, DecisionKind.ROLLBACK, actor=who, reason=reason)
        move(
            locked,
            "rollback",
            actor=who,
            reason=reason,
            extra_after={
                "rollback_to": str(rollback_target_of(locked.candidate_version.document)),
                "route_active_version": target.number,
                "previous_version": old_version,
            },
        )
    return locked
