from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection, transaction
from django.utils import timezone

from audit_app.actors import Actor, as_actor
from audit_app.chain import GENESIS, event_hash, json_safe
from audit_app.models import AuditEvent
from audit_app.signals import event_recorded
from kernel.context import current_request_id

# Any constant works: it only has to be the same for every writer of the chain.
_CHAIN_LOCK_KEY = 0x5EC_A0D17


def _lock_chain() -> None:
    """Serialize writers until the caller's transaction ends, so two transactions can't
    both read the same head and fork the chain. SQLite (embedded demo) has one writer at a
    time anyway; the primary key on id catches a fork there."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CHAIN_LOCK_KEY])


def audit_record(
    *,
    actor: Actor | AbstractBaseUser | AnonymousUser | None,
    action: str,
    obj_type: str,
    obj_id: object,
    route: Any = None,
    before: Any = None,
    after: Any = None,
    reason: str = "",
) -> AuditEvent:
    """Append one event in the caller's transaction: if the caller rolls back, the event
    goes too. `actor` is an Actor, a user, or None (the system); `route` a Route or slug.
    The chain lock is held until the outermost transaction commits, so callers should
    record events late in their transaction."""
    who = as_actor(actor)
    route_slug = "" if route is None else str(getattr(route, "slug", route))
    with transaction.atomic():
        _lock_chain()
        head = AuditEvent.objects.order_by("-id").values("id", "hash").first()
        fields: dict[str, Any] = {
            "id": head["id"] + 1 if head else 1,
            "at": timezone.now(),
            "actor_id": who.user.pk if who.user is not None else None,
            "actor_label": who.label,
            "action": action,
            "object_type": obj_type,
            "object_id": str(obj_id),
            "route": route_slug,
            "before": json_safe(before),
            "after": json_safe(after),
            "reason": reason,
            "request_id": current_request_id(),
            "prev_hash": head["hash"] if head else GENESIS,
        }
        event = AuditEvent.objects.create(**fields, hash=event_hash(**fields))
        event_recorded.send(sender=AuditEvent, event=event)
        return event
