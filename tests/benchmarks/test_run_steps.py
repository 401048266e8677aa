"""A running benchmark says which level of which arm it is on, for how long that step has
run (its own clock, which restarts at each step and says so), and, once a step has
finished, about how long the run has left: each step still to run expected to take what
the same level took on the other arm, else the mean of the steps measured so far."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from benchmarks_app.models import Run
from benchmarks_app.progress import current_step, step_order, step_plan
from benchmarks_app.services.lifecycle import run_progress, run_start
from tests.support.run_specs import arm, run_spec
from tests.support.workers import openai_run, register

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
# A whole run spec (what run_start stores); its steps are `RunSpec.pieces()`.
SPEC: dict[str, Any] = run_spec(
    baseline=arm("http://127.0.0.1:9"),
    candidate=arm("http://127.0.0.1:9"),
    levels=[{"concurrency": c} for c in (1, 4, 16, 32)],
    requests_per_level=10,
)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def plan(*began: float) -> dict[str, Any]:
    return {**step_plan(SPEC, T0), "began": [at(s) for s in began]}


def test_the_steps_follow_the_workers_interleaved_order() -> None:
    assert step_order(SPEC)[:4] == [
        (0, "baseline", 10),
        (0, "candidate", 10),
        (1, "candidate", 10),
        (1, "baseline", 10),
    ]
    assert step_order({**SPEC, "interleave": "arm_blocks"})[3:5] == [
        (3, "baseline", 10),
        (0, "candidate", 10),
    ]


def test_under_alternating_blocks_each_block_is_a_step_and_the_rate_carries_over() -> None:
    spec = {**SPEC, "interleave": "alternating_blocks", "block_requests": 5}
    assert step_order(spec)[:4] == [
        (0, "baseline", 5),
        (0, "candidate", 5),
        (0, "candidate", 5),
        (0, "baseline", 5),
    ]
    steps = {**step_plan(spec, T0), "began": [at(0), at(10), at(20)]}
    step = current_step(steps, 12, T0 + timedelta(seconds=22))  # 2 s into the candidate's second block
    assert step is not None and (step.arm, step.level, step.number, step.steps) == ("candidate", 1, 3, 10)
    # Level 1 in blocks of 5; the higher levels in one block each (a block holds at least
    # BLOCKS_PER_CONCURRENCY x concurrency requests). 2 s per request measured so far: 8 s
    # left of this block, 10 s for the baseline's, 6 x 10 requests at the higher levels.
    assert step.eta_s == 8 + 10 + 6 * 20


def test_no_estimate_until_a_step_has_finished() -> None:
    step = current_step(plan(0), 7, T0 + timedelta(seconds=25))
    assert step is not None and (step.arm, step.level, step.levels, step.elapsed_s) == ("baseline", 1, 4, 25)
    assert step.eta_s is None
    assert step.words == "baseline arm, level 1 of 4 (step 1 of 8), 25 s"


def test_the_estimate_takes_the_same_level_of_the_other_arm_else_the_mean() -> None:
    # Level 1: baseline 40 s, candidate 30 s; level 2's candidate has run 5 s.
    step = current_step(plan(0, 40, 70), 25, T0 + timedelta(seconds=75))
    assert step is not None and (step.arm, step.level, step.number, step.elapsed_s) == ("candidate", 2, 3, 5)
    # Steps 3..8 have no same-level twin measured: 35 s each (the mean), less 5 s run.
    assert step.eta_s == 6 * 35 - 5
    assert step.words == (
        "candidate arm, level 2 of 4 (step 3 of 8), 5 s; "
        "about 3 min 25 s left, from the steps measured so far"
    )
    # Level 2's baseline after its candidate took 50 s: it is expected to take 50 s too.
    step = current_step(plan(0, 40, 70, 120), 31, T0 + timedelta(seconds=130))
    assert step is not None and (step.arm, step.level, step.elapsed_s) == ("baseline", 2, 10)
    mean = (40 + 30 + 50) / 3
    assert step.eta_s == round((50 - 10) + 4 * mean)


def test_the_run_notes_when_each_step_begins_and_the_api_and_page_say_it(
    versions: Any, proposer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [T0]
    monkeypatch.setattr("django.utils.timezone.now", lambda: clock[0])
    reg = register("w1")
    run = openai_run(versions)
    per_level = run.spec["load"]["requests_per_level"]
    levels = len(run.spec["load"]["levels"])
    order = step_order(run.spec)
    block = order[0][2]  # the first step's requests: a level, or its first block
    run_start(run_id=run.pk, worker=reg.worker, attempt=1)
    total = run.progress_total

    def report(seconds: float, done: int, phase: str = "benchmarking") -> None:
        clock[0] = T0 + timedelta(seconds=seconds)
        run_progress(run_id=run.pk, worker=reg.worker, attempt=1, done=done, total=total, phase=phase)

    report(1, 0)
    report(20, block - 1)
    report(40, block)  # the candidate's first step begins
    report(55, block + 1)
    stored = Run.objects.get(pk=run.pk)
    assert stored.progress_steps["began"] == [at(0), at(40)]
    assert stored.progress_steps["order"][:2] == [[0, "baseline", block], [0, "candidate", block]]

    clock[0] = T0 + timedelta(seconds=50)
    viewer = APIClient()
    viewer.force_login(proposer)
    progress = viewer.get(f"/api/v1/runs/{run.pk}/").json()["progress"]
    steps = len(order)
    # 40 s for the first `block` requests: every request still to run is expected at that rate.
    expected_eta = round((40 - 10) + (2 * levels * per_level - 2 * block) * 40 / block)
    assert progress["step"] == {
        "arm": "candidate", "level": 1, "levels": levels, "number": 2, "steps": steps,
        "elapsed_s": 10, "eta_s": expected_eta,
    }  # fmt: skip
    assert progress["words"].startswith(
        f"candidate arm, level 1 of {levels} (step 2 of {steps}), 10 s; about "
    )

    # The engine starting again (a managed engine per step): said first, then the step.
    report(50, block + 1, phase="engine_starting")
    clock[0] = T0 + timedelta(seconds=62)
    client = Client()
    client.force_login(proposer)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert (
        f"the engine is starting and loading its model (12 s); candidate arm, level 1 of {levels} "
        f"(step 2 of {steps}), 22 s; about "
    ) in page

    # Started over (a redelivery): the steps start over too.
    run_start(run_id=run.pk, worker=reg.worker, attempt=1)
    assert Run.objects.get(pk=run.pk).progress_steps["began"] == [clock[0].isoformat()]
