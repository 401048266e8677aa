"""What the story decides before anything is written: versions, releases with their
transitions and decisions, runs with their states. Plain dataclasses (they travel to the
worker processes that build the results)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from benchmarks.datagen.audit import Who
from benchmarks.datagen.documents import StoredDocument
from benchmarks.datagen.people import Machine, Person

MICROSECOND = timedelta(microseconds=1)


@dataclass
class VersionPlan:
    id: int
    route_id: int
    route: str
    number: int
    stored: StoredDocument
    source: str
    created_by: int | None
    created_at: datetime

    @property
    def speculation(self) -> tuple[str, int]:
        """The contract's speculation method and draft tokens (("none", 0) without speculation)."""
        speculation = self.stored.document.get("speculation") or {}
        return str(speculation.get("method", "none")), int(speculation.get("num_speculative_tokens") or 0)


@dataclass
class Transition:
    """One `releases_app.choices.TRANSITIONS` move, as `move()` would make it."""

    name: str
    at: datetime
    who: Who
    reason: str = ""
    request_id: str = ""
    extra_after: dict[str, Any] | None = None


@dataclass
class DecisionPlan:
    kind: str
    at: datetime
    who: Person
    reason: str
    # An approval of a failed gate needs an override; known once the gate has run.
    justification_if_failed: str = ""


@dataclass
class ReleasePlan:
    id: int
    route_id: int
    route: str
    baseline: VersionPlan | None
    candidate: VersionPlan
    proposer: Person
    created_at: datetime
    diff: list[dict[str, Any]]
    reason: str
    request_id: str
    state: str = "proposed"
    transitions: list[Transition] = field(default_factory=list)
    decisions: list[DecisionPlan] = field(default_factory=list)
    runs: list[RunPlan] = field(default_factory=list)
    failure_reason: str = ""
    # How the candidate behaves under the benchmark: "good" releases tend to pass the gate.
    intent: str = "mixed"
    gated: bool = False
    verdict: str | None = None
    gate_result: dict[str, Any] | None = None

    @property
    def run_ids(self) -> list[int]:
        return [r.id for r in self.runs]


@dataclass
class RunPlan:
    id: int
    route_id: int
    route: str
    release_id: int | None
    lane: str
    baseline: VersionPlan
    candidate: VersionPlan
    engine_kind: str
    endpoints: dict[str, Any] | None
    target_worker_id: int | None
    queue: str
    created_by: int | None
    created_at: datetime
    intent: str = "mixed"
    state: str = "queued"
    worker: Machine | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    last_error: str = ""
    cancelled_by: str = ""

    @property
    def has_result(self) -> bool:
        return self.state == "succeeded"


@dataclass
class RoutePlan:
    id: int
    slug: str
    template: str
    description: str
    created_at: datetime
    versions: list[VersionPlan] = field(default_factory=list)
    releases: list[ReleasePlan] = field(default_factory=list)
    # (from, active version) in time order: what a standalone run at time t compares with.
    active_history: list[tuple[datetime, VersionPlan]] = field(default_factory=list)
    active_version: VersionPlan | None = None
    active_since: datetime | None = None

    def active_at(self, when: datetime) -> VersionPlan | None:
        current = None
        for since, version in self.active_history:
            if since > when:
                break
            current = version
        return current
