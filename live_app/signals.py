"""What live_app tells the rest of the project, without knowing who listens.

`acceptance_dropped` is sent once the transaction that raised an acceptance alert has
committed; receivers get `alert_id` (an `AcceptanceAlert`), `endpoint_id`, `route_id`,
`version_id` (the version whose live acceptance dropped) and `reason` (the alert's words).
releases_app listens to propose the rollback release and records it on the alert. A
receiver runs in no transaction of ours: it re-reads what it needs."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

from live_app.models import AcceptanceAlert

acceptance_dropped = Signal()


def announce_acceptance_dropped(*, alert: AcceptanceAlert) -> None:
    """Call in the transaction that raised `alert`: the signal goes out after its commit."""
    sent = {
        "alert_id": alert.pk,
        "endpoint_id": alert.endpoint_id,
        "route_id": alert.endpoint.route_id,
        "version_id": alert.version_id,
        "reason": alert.reason,
    }
    transaction.on_commit(lambda: acceptance_dropped.send(sender=AcceptanceAlert, **sent))
