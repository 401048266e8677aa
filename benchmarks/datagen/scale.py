"""How much data to generate. `FULL` is issue 16's scale; `SMALL` is 1/50th of it, for a
quick check and the fast test; `X10` ten times `FULL` (issue 26, point 2: 5,000 routes,
200,000 versions, 50,000 releases, 200,000 runs, ~20M samples, 1M audit events, a year of
live probes on a tenth of the routes), for the benchmark that shows a request's cost does not
grow with the data."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scale:
    name: str
    routes: int
    versions: int
    releases: int
    runs: int
    results: int
    audit_events: int
    # People and machines grow more slowly than the data they produce.
    operators: int
    approvers: int
    viewers: int
    pipelines: int
    workers: int
    # Routes with live endpoints (two each), and how far back their probes and samples go
    # (benchmarks/datagen/live.py: "a year of live probes").
    live_routes: int = 0
    live_days: int = 365
    days: int = 420

    def __post_init__(self) -> None:
        if self.versions < 2 * self.routes or self.releases < self.routes:
            raise ValueError("every route needs at least two versions and one release")
        if self.results > self.runs:
            raise ValueError("a result belongs to one run: results <= runs")


FULL = Scale(
    name="full",
    routes=500,
    versions=20_000,
    releases=5_000,
    runs=20_000,
    results=15_000,
    audit_events=100_000,
    operators=40,
    approvers=16,
    viewers=24,
    pipelines=12,
    workers=40,
    live_routes=50,
)

SMALL = Scale(
    name="small",
    routes=10,
    versions=400,
    releases=100,
    runs=400,
    results=300,
    audit_events=2_000,
    operators=6,
    approvers=4,
    viewers=3,
    pipelines=2,
    workers=6,
    live_routes=2,
)

# People and machines three times FULL's: a fleet ten times busier is not ten times the
# staff, and a `--scale` whose users grew tenfold would measure the people lists instead.
X10 = Scale(
    name="x10",
    routes=5_000,
    versions=200_000,
    releases=50_000,
    runs=200_000,
    results=150_000,
    audit_events=1_000_000,
    operators=120,
    approvers=48,
    viewers=72,
    pipelines=36,
    workers=120,
    live_routes=500,
)

SCALES = {s.name: s for s in (FULL, SMALL, X10)}
