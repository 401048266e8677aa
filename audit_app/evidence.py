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


class Evidence:
    """Collects, while the chain is walked (`verify_chain(visit=…)`), the events a check is
    registered for, then runs the checks on them: the walk's read is the only one."""

    def __init__(self) -> None:
        self.events: dict[str, list[AuditEvent]] = {}

    def visit(self, event: AuditEvent) -> None:
        if event.action in _CHECKS:
            self.events.setdefault(event.action, []).append(event)

    def finding(self) -> Finding | None:
        """The first collected event whose evidence changed, as a `result_changed` finding."""
        found = [
            hit for action, events in self.events.items() if (hit := _CHECKS[action](events)) is not None
        ]
        if not found:
            return None
        event_id, why = min(found)
        return Finding("result_changed", event_id, None, f"event #{event_id}: {why}")
