"""Webhooks answer the audit trail's signals by writing deliveries to the outbox, in the
transaction of the event itself: a release that rolls back leaves no delivery behind, and
one that commits can't lose its delivery."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.signals import chain_failed, checkpoint_signed, event_recorded
from webhooks_app.events import CHAIN_FAILED, CHECKPOINT_SIGNED, is_webhook_event
from webhooks_app.services import deliveries_write


@receiver(event_recorded, sender=AuditEvent, dispatch_uid="webhooks-event-recorded")
def on_event_recorded(sender: Any, event: AuditEvent, **kwargs: Any) -> None:
    if not is_webhook_event(event.action):
        return
    deliveries_write(
        event=event.action,
        event_key=f"audit:{event.pk}",
        route=event.route,
        data={
            "audit_event": event.pk,
            "object": {"type": event.object_type, "id": event.object_id},
            "actor": event.actor_label,
            "before": event.before,
            "after": event.after,
            "reason": event.reason,
            "request_id": event.request_id,
        },
        occurred_at=event.at,
    )


@receiver(chain_failed, sender=AuditEvent, dispatch_uid="webhooks-chain-failed")
def on_chain_failed(sender: Any, status: dict[str, Any], **kwargs: Any) -> None:
    # One delivery per break (its first broken link and kind), however often it is seen.
    deliveries_write(
        event=CHAIN_FAILED,
        event_key=f"chain:{status.get('problem')}:{status.get('first_broken')}",
        route="",
        data={"verify": status},
    )


@receiver(checkpoint_signed, sender=AuditCheckpoint, dispatch_uid="webhooks-checkpoint-signed")
def on_checkpoint_signed(sender: Any, checkpoint: dict[str, Any], **kwargs: Any) -> None:
    # The signed head, delivered off the database: a receiver that keeps them can tell
    # when checkpoint rows were deleted (docs/audit-checkpoints.md).
    deliveries_write(
        event=CHECKPOINT_SIGNED,
        event_key=f"checkpoint:{checkpoint['id']}",
        route="",
        data={"checkpoint": checkpoint},
    )
