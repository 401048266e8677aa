"""Where a running benchmark is, in the order its worker runs it, and about how long it has
left.

A run is a sequence of steps, one (level, arm) pair each, in `worker.spec.RunSpec.order()`
(interleaved: level 1 baseline then candidate, level 2 candidate then baseline, …; or the
baseline's levels then the candidate's). Each step sends `requests_per_level` requests and
the worker's progress counts them across the run (worker/agent/execute.py: `base + p.done`),
so `done // requests_per_level` is the step running now. `run_start` keeps the order with
the run (`Run.progress_steps`: {"order", "per_level", "began"}, so that pages listing runs
need not read their specifications) and `run_progress` notes when each step began; from
those:

- the step's own elapsed time (now − its start): the clock the page shows restarts at each
  step *and says which step it is* ("candidate arm, level 2 of 4");
- the estimate, once a step has finished: each step still to run is expected to take what
  the same level took on the other arm when that was measured (the two arms send the same
  prompts at the same load), else the mean of the steps measured so far; the running step
  is expected to take that less what it has already run (never below zero).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


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


def step_order(spec: dict[str, Any]) -> list[tuple[int, str]]:
    """`RunSpec.order()` on the stored spec (a dict): (level index, arm) per step."""
    n = len((spec.get("load") or {}).get("levels") or [])
    if spec.get("interleave") == "arm_blocks":
        return [(i, "baseline") for i in range(n)] + [(i, "candidate") for i in range(n)]
    out: list[tuple[int, str]] = []
    for i in range(n):
        out += [(i, "baseline"), (i, "candidate")] if i % 2 == 0 else [(i, "candidate"), (i, "baseline")]
    return out


def step_plan(spec: dict[str, Any], began: datetime) -> dict[str, Any]:
    """What `Run.progress_steps` holds from the start of an attempt (its first step begun)."""
    per_level = int((spec.get("load") or {}).get("requests_per_level") or 0)
    return {
        "order": [list(s) for s in step_order(spec)],
        "per_level": per_level,
        "began": [began.isoformat()],
    }


def step_index(plan: dict[str, Any], done: int) -> int | None:
    """The step running when `done` requests have been sent; None without a plan."""
    order, per_level = plan.get("order") or [], int(plan.get("per_level") or 0)
    if not order or per_level <= 0:
        return None
    return min(max(done, 0) // per_level, len(order) - 1)


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
    order = [(int(i), str(arm)) for i, arm in plan.get("order") or []]
    index, starts = step_index(plan, done), plan.get("began") or []
    if index is None or index >= len(starts):
        return None
    began = [datetime.fromisoformat(s) for s in starts[: index + 1]]
    measured = {order[i]: (began[i + 1] - began[i]).total_seconds() for i in range(index)}
    elapsed = max(0.0, (now - began[index]).total_seconds())
    eta: float | None = None
    if measured:
        mean = sum(measured.values()) / len(measured)
        other = {"baseline": "candidate", "candidate": "baseline"}

        def expected(step: tuple[int, str]) -> float:
            return measured.get((step[0], other[step[1]]), mean)

        eta = max(0.0, expected(order[index]) - elapsed) + sum(expected(s) for s in order[index + 1 :])
    level_index, arm = order[index]
    return Step(
        arm=arm,
        level=level_index + 1,
        levels=len({i for i, _ in order}),
        number=index + 1,
        steps=len(order),
        elapsed_s=int(elapsed),
        eta_s=None if eta is None else round(eta),
    )
