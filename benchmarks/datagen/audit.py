"""Audit events: drafted while the story is told, chained at the end exactly as
`audit_app.services.audit_record` chains them: ids in time order from 1, `json_safe` on
before/after, `event_hash` over the fields with the previous event's hash (GENESIS first).
The hash function is the app's own (`audit_app.chain`), never a copy of it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from audit_app.chain import GENESIS, event_hash, json_safe


@dataclass(frozen=True)
class Who:
    """An acting party as `audit_app.actors.Actor` labels it."""

    label: str
    user_id: int | None = None

    @classmethod
    def user(cls, user_id: int, username: str) -> Who:
        return cls(f"user:{username}", user_id)

    @classmethod
    def token(cls, user_id: int, prefix: str) -> Who:
        return cls(f"token:{prefix}", user_id)

    @classmethod
    def system(cls, name: str = "system") -> Who:
        return cls(name)

    @classmethod
    def worker(cls, name: str) -> Who:
        return cls(f"worker:{name}")


@dataclass(order=True)
class Draft:
    """One event before it has an id. Sorted by time, then by the order it was drafted
    (events of one transaction share a moment and keep their order)."""

    at: datetime
    seq: int
    who: Who = field(compare=False)
    action: str = field(compare=False)
    object_type: str = field(compare=False)
    object_id: str = field(compare=False)
    route: str = field(compare=False, default="")
    before: Any = field(compare=False, default=None)
    after: Any = field(compare=False, default=None)
    reason: str = field(compare=False, default="")
    request_id: str = field(compare=False, default="")


class Journal:
    """Collects drafts from every part of the story."""

    def __init__(self) -> None:
        self.drafts: list[Draft] = []

    def record(
        self,
        at: datetime,
        who: Who,
        action: str,
        obj_type: str,
        obj_id: object,
        *,
        route: str = "",
        before: Any = None,
        after: Any = None,
        reason: str = "",
        request_id: str = "",
    ) -> None:
        self.drafts.append(
            Draft(
                at=at,
                seq=len(self.drafts),
                who=who,
                action=action,
                object_type=obj_type,
                object_id=str(obj_id),
                route=route,
                before=before,
                after=after,
                reason=reason,
                request_id=request_id,
            )
        )

    def __len__(self) -> int:
        return len(self.drafts)


def chained_rows(drafts: Iterable[Draft]) -> Iterator[dict[str, Any]]:
    """The audit table's rows (by attribute name), in chain order."""
    prev = GENESIS
    for number, d in enumerate(sorted(drafts), start=1):
        fields: dict[str, Any] = {
            "id": number,
            "at": d.at,
            "actor_id": d.who.user_id,
            "actor_label": d.who.label,
            "action": d.action,
            "object_type": d.object_type,
            "object_id": d.object_id,
            "route": d.route,
            "before": json_safe(d.before),
            "after": json_safe(d.after),
            "reason": d.reason,
            "request_id": d.request_id,
            "prev_hash": prev,
        }
        prev = event_hash(**fields)
        yield {**fields, "hash": prev}
