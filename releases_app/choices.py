"""Release states, gate verdicts and decision kinds, and the named transitions between
states: the one place that says which move is allowed from where."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models

from worker import spec


class ReleaseState(models.TextChoices):
    PROPOSED = "proposed", "proposed"
    BENCHMARKING = "benchmarking", "benchmarking"
    AWAITING_REVIEW = "awaiting_review", "awaiting review"
    APPROVED = "approved", "approved"
    ACTIVE = "active", "active"
    REJECTED = "rejected", "rejected"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"
    ROLLED_BACK = "rolled_back", "rolled back"
    SUPERSEDED = "superseded", "superseded"


# A route has at most one of these at a time (a partial unique index enforces it):
# proposing another release while one is open is refused with 409 until it is cancelled,
# rejected or finished.
OPEN_STATES: tuple[str, ...] = (
    ReleaseState.PROPOSED,
    ReleaseState.BENCHMARKING,
    ReleaseState.AWAITING_REVIEW,
    ReleaseState.APPROVED,
)


# A release proposed with live endpoints names one per arm (`Release.endpoints`).
ARMS: tuple[str, ...] = spec.ARMS  # the one definition is the run spec's


class GateVerdict(models.TextChoices):
    PASS = "pass", "pass"
    MARGINAL = "marginal", "marginal"
    FAIL = "fail", "fail"


class DecisionKind(models.TextChoices):
    APPROVE = "approve", "approved"
    REJECT = "reject", "rejected"
    CANCEL = "cancel", "cancelled"
    ROLLBACK = "rollback", "rolled back"


@dataclass(frozen=True)
class Transition:
    name: str
    sources: tuple[str, ...]
    target: str
    action: str  # the audit event's action


_S = ReleaseState
TRANSITIONS: dict[str, Transition] = {
    t.name: t
    for t in (
        Transition("start_benchmark", (_S.PROPOSED,), _S.BENCHMARKING, "release.benchmark_started"),
        Transition("skip_benchmark", (_S.PROPOSED,), _S.AWAITING_REVIEW, "release.benchmark_skipped"),
        Transition("complete_gate", (_S.BENCHMARKING,), _S.AWAITING_REVIEW, "release.gate_completed"),
        Transition("fail", (_S.PROPOSED, _S.BENCHMARKING), _S.FAILED, "release.failed"),
        Transition("approve", (_S.AWAITING_REVIEW,), _S.APPROVED, "release.approved"),
        Transition("activate", (_S.APPROVED,), _S.ACTIVE, "release.activated"),
        Transition("reject", (_S.BENCHMARKING, _S.AWAITING_REVIEW), _S.REJECTED, "release.rejected"),
        Transition(
            "cancel", (_S.PROPOSED, _S.BENCHMARKING, _S.AWAITING_REVIEW), _S.CANCELLED, "release.cancelled"
        ),
        Transition("rollback", (_S.ACTIVE,), _S.ROLLED_BACK, "release.rolled_back"),
        Transition("supersede", (_S.ACTIVE,), _S.SUPERSEDED, "release.superseded"),
    )
}

# Override needs a written reason a reviewer can read later, not "ok".
MIN_JUSTIFICATION_LENGTH = 20
