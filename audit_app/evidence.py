"""Evidence an event names outside the chain, checked again on verification.

Some events vouch for rows that live elsewhere: `release.gate_completed` records the
digest of every result the gate judged. The chain proves the event unchanged, not the
rows; swapping a judged result would leave the chain valid. The app that owns the rows
registers a check for its action here (the audit trail sits below every app and imports
none of them): given events, it answers the first one whose evidence no longer matches
and why. `verify_audit` and `audit/verify` run the checks over the events they walk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from audit_app.holding import Finding
from audit_app.models import AuditEvent

# events (in id order) → (event id, why) of the first whose evidence changed, or None
EvidenceCheck = Callable[[Iterable[AuditEvent]], tuple[int, str] | None]

_CHECKS: dict[str, EvidenceCheck] = {}


def register_evidence_check(action: str, check: EvidenceCheck) -> None:
    """Called from an AppConfig.ready(); registering the same action again replaces it."""
    _CHECKS[action] = check


def evidence_finding(*, after: int, through: int) -> Finding | None:
    """The first event in (after, through] whose evidence changed, as a `result_changed`
    finding; one query per registered action that has events in the range."""
    found: list[tuple[int, str]] = []
    for action, check in _CHECKS.items():
        events = AuditEvent.objects.filter(action=action, id__gt=after, id__lte=through).order_by("id")
        hit = check(events.iterator(chunk_size=200))
        if hit is not None:
            found.append(hit)
    if not found:
        return None
    event_id, why = min(found)
    return Finding("result_changed", event_id, None, f"event #{event_id}: {why}")
