"""The rollback release the acceptance watch asks for (`live_app.signals.acceptance_dropped`):
proposed by the watch's system actor, to the contract's `rollback.to` target, and linked
from the alert. Nothing activates: the proposal needs an approver like any other."""

from __future__ import annotations

from django.db import transaction

from kernel.errors import DomainError
from live_app.choices import AlertState
from live_app.models import AcceptanceAlert
from live_app.services import watch_actor
from releases_app.choices import ReleaseState
from releases_app.models import Release
from releases_app.services.proposals import release_create
from releases_app.services.rollback import rollback_target


def release_propose_for_drop(*, alert_id: int) -> AcceptanceAlert | None:
    """Propose the rollback for an open alert, or say on the alert why none was proposed
    (no active release of the version, another release already open on the route, no
    target). An alert already answered is left alone: one proposal per drop. None when
    the alert is gone."""
    alert = AcceptanceAlert.objects.select_related("endpoint__route", "version").filter(pk=alert_id).first()
    if alert is None or alert.state != AlertState.OPEN:
        return alert
    actor = watch_actor()
    route, version, reason = alert.endpoint.route, alert.version, alert.reason
    active = (
        Release.objects.filter(route=route, candidate_version=version, state=ReleaseState.ACTIVE)
        .order_by("-id")
        .first()
    )
    try:
        if active is None:
            raise DomainError(f"no active release of version {version.number} to roll back from", status=409)
        with transaction.atomic():
            target = rollback_target(route, active, actor=actor)
            release = release_create(route=route, candidate_version=target, actor=actor, reason=reason[:1000])
            alert.release, alert.state = release, AlertState.PROPOSED
            alert.save(update_fields=["release", "state"])
    except DomainError as exc:
        alert.state = AlertState.NOT_PROPOSED
        alert.reason = f"{reason} No rollback proposed: {exc.detail}"
        alert.save(update_fields=["state", "reason"])
    return alert
