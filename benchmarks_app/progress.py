"""Where a running benchmark is, in the order its worker runs it, and about how long it has
left.

A run is a sequence of steps in `worker.spec.RunSpec.pieces()`: one level of one arm each,
or, under `alternating_blocks`, one block of one level of one arm (A B B A … within a
level). The worker's progress counts requests across the run (worker/agent/execute.py:
`base + p.done`), so the step running now is the one whose cumulative requests `done`
falls in. `run_start` keeps the steps with the run (`Run.progress_steps`: {"order":
[[level index, arm, requests], …], "began"}, so that pages listing runs need not read their
specifications) and `run_progress` notes when each step began; from those:

- the step's own elapsed time (now − its start): the clock the page shows restarts at each
  step *and says which step it is* ("candidate arm, level 2 of 4");
- the estimate, once a step has finished: each step still to run is expected to take its
  requests times the seconds per request measured at the same level on the same arm, else
  on the other arm (the two send the same prompts at the same load), else the mean over
  the steps measured so far; the running step is expected to take that less what it has
  already run (never below zero).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from worker.spec import RunSpec


@dataclass(frozen=True)
class Step:
    arm: str
    level: int  # 1-based, in the lane's order of levels
    levels: int
    number: int  # 1-based position among all steps
    steps: int
    elapsed_s: int
    eta_s: int | None  # None until a step has finished

    @property
    def words(self) -> str:
        where = f"{self.arm} arm, level {self.level} of {self.levels} (step {self.number} of {self.steps})"
        text = f"{where}, {duration(self.elapsed_s)}"
        if self.eta_s is not None:
            text += f"; about {duration(self.eta_s)} left, from the steps measured so far"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "arm": self.arm,
            "level": self.level,
            "levels": self.levels,
            "number": self.number,
            "steps": self.steps,
            "elapsed_s": self.elapsed_s,
            "eta_s": self.eta_s,
        }


def duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def step_order(spec: dict[str, Any]) -> list[tuple[int, str, int]]:
    """`RunSpec.pieces()` on the stored spec: (level index, arm, requests) per step, one
    step per block under `alternating_blocks`. A spec that no longer parses has no steps."""
    try:
        pieces = RunSpec.model_validate(spec).pieces()
    except ValueError:
        return []
    return [(i, arm, size) for i, arm, _, size in pieces]


def step_plan(spec: dict[str, Any], began: datetime) -> dict[str, Any]:
    """What `Run.progress_steps` holds from the start of an attempt (its first step begun)."""
    return {"order": [list(s) for s in step_order(spec)], "began": [began.isoformat()]}


def _steps(plan: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(int(i), str(arm), int(size)) for i, arm, size in plan.get("order") or []]


def step_index(plan: dict[str, Any], done: int) -> int | None:
    """The step running when `done` requests have been sent; None without a plan."""
    steps = _steps(plan)
    if not steps:
        return None
    sent = 0
    for index, (_, _, size) in enumerate(steps):
        sent += size
        if max(done, 0) < sent:
            return index
    return len(steps) - 1


def step_begun(plan: dict[str, Any], done: int, now: datetime) -> dict[str, Any] | None:
    """The plan with the step `done` falls in noted as begun `now`; None when it was
    already. A step the reports skipped over (shorter than the worker's report interval)
    is noted as beginning now too."""
    index, began = step_index(plan, done), list(plan.get("began") or [])
    if index is None or len(began) > index:
        return None
    return {**plan, "began": began + [now.isoformat()] * (index + 1 - len(began))}


def current_step(plan: dict[str, Any], done: int, now: datetime) -> Step | None:
    """The step running now, its elapsed time and the estimate (module docstring)."""
    steps = _steps(plan)
    index, starts = step_index(plan, done), plan.get("began") or []
    if index is None or index >= len(starts):
        return None
    began = [datetime.fromisoformat(s) for s in starts[: index + 1]]
    # Seconds per request of each (level, arm) measured so far: blocks of one level differ
    # in size only by a remainder, so the rate carries over from block to block.
    spent: dict[tuple[int, str], list[float]] = {}
    for k in range(index):
        level, arm, size = steps[k]
        total = spent.setdefault((level, arm), [0.0, 0.0])
        total[0] += (began[k + 1] - began[k]).total_seconds()
        total[1] += size
    rate = {key: t / n for key, (t, n) in spent.items() if n > 0}
    elapsed = max(0.0, (now - began[index]).total_seconds())
    eta: float | None = None
    if rate:
        mean = sum(t for t, _ in spent.values()) / max(1.0, sum(n for _, n in spent.values()))
        other = {"baseline": "candidate", "candidate": "baseline"}

        def expected(step: tuple[int, str, int]) -> float:
            level, arm, size = step
            per = rate.get((level, arm), rate.get((level, other[arm]), mean))
            return per * size

        eta = max(0.0, expected(steps[index]) - elapsed) + sum(expected(s) for s in steps[index + 1 :])
    level_index, arm, _ = steps[index]
    return Step(
        arm=arm,
        level=level_index + 1,
        levels=len({i for i, _, _ in steps}),
        number=index + 1,
        steps=len(steps),
        elapsed_s=int(elapsed),
        eta_s=None if eta is None else round(eta),
    )
