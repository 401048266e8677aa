"""Which events a subscription can name, and which subscriptions an event goes to.

Event names are the audit trail's actions, derived, never listed by hand: a release's
state changes are the release transition table's actions (releases_app/choices.py:
`release.benchmark_started`, `release.gate_completed` — the gate's verdict, in
`after.gate_verdict` — `release.approved`, …), the other events are the audit actions
that audit_app/actions.py marks as webhook events (`release.proposed`, `endpoint.created`,
`drift.state_changed`, `acceptance.alert_raised`, …), `audit.chain_failed` is sent when
the audit chain stops verifying, and `audit.checkpoint_signed` with each signed checkpoint's
head (a copy off the database: audit_app/heads.py)."""

from __future__ import annotations

from collections.abc import Iterable

from audit_app.actions import WEBHOOK_ACTIONS
from releases_app.choices import TRANSITIONS

CHAIN_FAILED = "audit.chain_failed"
CHECKPOINT_SIGNED = "audit.checkpoint_signed"
# The audit trail's own events: not actions in the trail, so named one by one, no family.
_AUDIT_EVENTS = (CHAIN_FAILED, CHECKPOINT_SIGNED)
_STATE_EVENTS = tuple(t.action for t in TRANSITIONS.values())
_OTHERS = tuple(a for a in WEBHOOK_ACTIONS if a not in _STATE_EVENTS)
KNOWN_EVENTS: tuple[str, ...] = (
    *(a for a in _OTHERS if a.startswith("release.")),
    *_STATE_EVENTS,
    *(a for a in _OTHERS if not a.startswith("release.")),
    *_AUDIT_EVENTS,
)
_EVENTS = frozenset(KNOWN_EVENTS)
# The families a subscription may name as `family.*`: those with an event in them.
FAMILIES = tuple(dict.fromkeys(e.split(".", 1)[0] + "." for e in KNOWN_EVENTS if e not in _AUDIT_EVENTS))


def is_webhook_event(action: str) -> bool:
    return action in _EVENTS


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` can't be subscribed to, or None: an event name of a known family,
    `family.*`, or `*`."""
    if pattern == "*" or pattern in _AUDIT_EVENTS:
        return None
    if pattern.endswith(".*"):
        family = pattern[:-1]
        return (
            None
            if family in FAMILIES
            else f"{pattern!r}: families are {', '.join(f + '*' for f in FAMILIES)}"
        )
    if is_webhook_event(pattern):
        return None
    return f"{pattern!r} is not an event: one of {', '.join(KNOWN_EVENTS)}, a family (release.*), or *"


def matches(patterns: Iterable[str], event: str) -> bool:
    for pattern in patterns:
        if pattern == "*" or pattern == event:
            return True
        if pattern.endswith(".*") and event.startswith(pattern[:-1]):
            return True
    return False
