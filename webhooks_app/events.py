"""Which events a subscription can name, and which subscriptions an event goes to.

Event names are the audit trail's actions (audit_app), so every state change a pipeline
cares about is one: a release's transitions (`release.proposed`, `release.benchmark_started`,
`release.gate_completed` — the gate's verdict, in `after.gate_verdict` — `release.approved`,
`release.activated`, `release.rejected`, `release.cancelled`, `release.failed`,
`release.rolled_back`, …), live endpoints' drift and acceptance alerts (`endpoint.*`,
`acceptance.*`, once those apps record them), and `audit.chain_failed` when the audit
chain stops verifying."""

from __future__ import annotations

from collections.abc import Iterable

CHAIN_FAILED = "audit.chain_failed"
# The families an event must belong to for webhooks to look at it at all: other audit
# events (tokens, uploads, workers) are not sent anywhere.
FAMILIES = ("release.", "endpoint.", "acceptance.", "drift.")
KNOWN_EVENTS = (
    "release.proposed",
    "release.overridden",
    "release.benchmark_started",
    "release.benchmark_skipped",
    "release.gate_completed",
    "release.failed",
    "release.approved",
    "release.activated",
    "release.rejected",
    "release.cancelled",
    "release.rolled_back",
    "release.superseded",
    CHAIN_FAILED,
)


def is_webhook_event(action: str) -> bool:
    return action == CHAIN_FAILED or action.startswith(FAMILIES)


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` can't be subscribed to, or None: an event name of a known family,
    `family.*`, or `*`."""
    if pattern == "*" or pattern == CHAIN_FAILED:
        return None
    if pattern.endswith(".*"):
        family = pattern[:-1]
        return (
            None
            if family in FAMILIES
            else f"{pattern!r}: families are {', '.join(f + '*' for f in FAMILIES)}"
        )
    if is_webhook_event(pattern) and pattern.replace(".", "").replace("_", "").isalnum():
        return None
    return f"{pattern!r} is not an event: one of {', '.join(KNOWN_EVENTS)}, a family (release.*), or *"


def matches(patterns: Iterable[str], event: str) -> bool:
    for pattern in patterns:
        if pattern == "*" or pattern == event:
            return True
        if pattern.endswith(".*") and event.startswith(pattern[:-1]):
            return True
    return False
