"""The stored "verified through event N (hash H) at T" mark (AuditChainMark): read it,
advance it after a walk of the newer events, and record a walk of the whole chain."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q

from audit_app.models import AuditChainMark

MARK_PK = 1


def mark_get() -> AuditChainMark | None:
    return AuditChainMark.objects.filter(pk=MARK_PK).first()


def mark_record_full(
    *, status: dict[str, Any], through: tuple[int, str] | None, checkpoints_through: int, at: datetime
) -> None:
    """After a walk of the whole chain: its answer, and, when it held, the mark moved to
    the last event it walked (a later load then walks only what came after)."""
    fields: dict[str, Any] = {
        "full_at": at,
        "full_status": status,
        "full_through_id": through[0] if through else 0,
    }
    if status["valid"]:
        fields |= {
            "through_id": through[0] if through else 0,
            "through_hash": through[1] if through else "",
            "checkpoints_through": checkpoints_through,
            "advanced_at": at,
        }
    AuditChainMark.objects.update_or_create(pk=MARK_PK, defaults=fields)


def mark_advance(*, from_id: int, through: tuple[int, str], checkpoints_through: int, at: datetime) -> None:
    """Move the mark forward after a valid walk of the events after `from_id`. Conditional:
    two loads that walked at once advance it once, and a full walk that moved it in the
    meantime is not undone."""
    AuditChainMark.objects.filter(pk=MARK_PK, through_id=from_id).filter(
        Q(through_id__lt=through[0]) | Q(checkpoints_through__lt=checkpoints_through)
    ).update(
        through_id=through[0],
        through_hash=through[1],
        checkpoints_through=checkpoints_through,
        advanced_at=at,
    )
