"""The hash chain: the canonical form of an event, its hash, and the walk that checks it.

hash = SHA-256 over the canonical JSON (sorted keys, no spaces, UTF-8) of the event's
fields, prev_hash included. The first event's prev_hash is GENESIS."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypedDict

from audit_app.models import AuditEvent

GENESIS = "0" * 64


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _numbers(value: Any) -> Any:
    """PostgreSQL's jsonb keeps numbers as decimals: 1e+20 comes back as the integer
    100000000000000000000, and NaN is refused. Store integral floats as ints and
    non-finite ones as strings, so what is hashed is what is read back."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


def json_safe(value: Any) -> Any:
    """What a JSON column gives back: dates, decimals and UUIDs become strings, so the
    hash computed before the insert equals the one recomputed after reading the row."""
    if value is None:
        return None
    return _numbers(json.loads(json.dumps(value, default=str)))


def event_hash(
    *,
    id: int,
    at: datetime,
    actor_id: int | None,
    actor_label: str,
    action: str,
    object_type: str,
    object_id: str,
    route: str,
    before: Any,
    after: Any,
    reason: str,
    request_id: str,
    prev_hash: str,
) -> str:
    content = {
        "id": id,
        "at": at.astimezone(UTC).isoformat(),
        "actor_id": actor_id,
        "actor_label": actor_label,
        "action": action,
        "object_type": object_type,
        "object_id": object_id,
        "route": route,
        "before": before,
        "after": after,
        "reason": reason,
        "request_id": request_id,
        "prev_hash": prev_hash,
    }
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


def hash_of(event: AuditEvent) -> str:
    return event_hash(
        id=event.id,
        at=event.at,
        actor_id=event.actor_id,
        actor_label=event.actor_label,
        action=event.action,
        object_type=event.object_type,
        object_id=event.object_id,
        route=event.route,
        before=event.before,
        after=event.after,
        reason=event.reason,
        request_id=event.request_id,
        prev_hash=event.prev_hash,
    )


class ChainStatus(TypedDict):
    valid: bool
    events: int
    first_broken: int | None


def verify_chain(
    *,
    after: tuple[int, str] | None = None,
    through: int | None = None,
    visit: Callable[[AuditEvent], None] | None = None,
) -> ChainStatus:
    """Walk the chain in id order. The first event whose prev_hash is not its
    predecessor's hash, whose own hash doesn't match its content, or whose id skips one
    (a deleted row) is the first broken link. Deleting the newest events leaves a shorter
    chain that still verifies, and so does a rewrite with every later hash recomputed:
    the signed checkpoints (audit_app/checkpoints.py) are what catch those.

    `after` = (id, hash) of an event already verified (a checkpoint's) starts the walk
    after it, trusting what came before; `events` then counts only the walked ones.
    `through` stops at that event (the head read before the walk, so the caller knows
    exactly which events a valid walk covered while others are being appended). `visit`
    sees every walked event (audit_app/evidence.py collects the ones it checks), so what
    else a check needs of the events costs no second read."""
    if after and through is not None and through <= after[0]:
        # Nothing after `after` up to `through`: what the walk would answer, without its
        # query (the audit page's usual load: no event since the mark).
        return {"valid": True, "events": 0, "first_broken": None}
    expected_id, expected_prev = (after[0] + 1, after[1]) if after else (1, GENESIS)
    count = 0
    first_broken: int | None = None
    events = AuditEvent.objects.order_by("id")
    if after:
        events = events.filter(id__gt=after[0])
    if through is not None:
        events = events.filter(id__lte=through)
    for event in events.iterator(chunk_size=2000):
        count += 1
        if visit is not None:
            visit(event)
        if first_broken is not None:
            continue
        if event.id != expected_id or event.prev_hash != expected_prev or hash_of(event) != event.hash:
            first_broken = event.id
        expected_prev = event.hash
        expected_id = event.id + 1
    return {"valid": first_broken is None, "events": count, "first_broken": first_broken}
