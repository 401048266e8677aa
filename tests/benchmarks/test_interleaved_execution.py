"""The arms alternate in blocks within a level (`alternating_blocks`), and the result says
the order that actually ran: the harness against two engine emulators on loopback."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

import pytest

from benchmarks_app.gate import gate_input_from_harness
from tests.support.launcher import Emulators
from tests.support.run_specs import arm, run_spec
from worker.agent.execute import execute
from worker.spec import RunOutcome, RunSpec, parse_spec


def _spec(base_url: str, cand_url: str, **extra: Any) -> RunSpec:
    return RunSpec.model_validate(
        run_spec(
            baseline=arm(base_url),
            candidate=arm(cand_url),
            levels=[{"concurrency": 1}, {"concurrency": 1}],
            requests_per_level=12,
            warmup_requests=1,
            interleave="alternating_blocks",
            block_requests=4,
            **extra,
        )
    )


@pytest.fixture(scope="module")
def interleaved() -> tuple[RunSpec, dict[str, Any]]:
    with Emulators() as emulators:
        base = emulators.start("--pattern", "1", "--step-ms", "2")
        cand = emulators.start("--pattern", "3", "--step-ms", "2")
        spec = _spec(base.base_url, cand.base_url)
        return spec, execute(spec, lambda *_: None)


def test_the_plan_alternates_blocks_abba_within_each_level_and_flips_the_first_arm_per_level():
    spec = _spec("http://127.0.0.1:1", "http://127.0.0.1:2")
    assert spec.block_sizes(0) == [4, 4, 4]
    b, c = "baseline", "candidate"
    assert [(i, arm, j) for i, arm, j, _ in spec.pieces()] == [
        (0, b, 0), (0, c, 0), (0, c, 1), (0, b, 1), (0, b, 2), (0, c, 2),
        (1, c, 0), (1, b, 0), (1, b, 1), (1, c, 1), (1, c, 2), (1, b, 2),
    ]  # fmt: skip


def test_blocks_hold_several_concurrent_slots_and_number_at_most_sixteen():
    spec = parse_spec(
        _spec("http://127.0.0.1:1", "http://127.0.0.1:2").model_dump(mode="json")
        | {"load": {"levels": [{"concurrency": 8}, {"concurrency": 1}], "requests_per_level": 1000}}
    )
    assert spec.block_sizes(0)[0] == 63 and len(spec.block_sizes(0)) == 15  # ceil(1000/16) > 4 x 8
    assert sum(spec.block_sizes(0)) == 1000 and sum(spec.block_sizes(1)) == 1000
    old = parse_spec({**spec.model_dump(mode="json"), "interleave": "abba_per_level"})
    assert old.block_sizes(0) == [1000] and len(old.order()) == 4  # stored runs read as before


def test_the_stored_order_is_the_interleaved_order_that_ran(interleaved):
    spec, outcome = interleaved
    RunOutcome.model_validate(outcome)  # what the control plane accepts
    order = outcome["order"]
    assert [(s["level_index"], s["arm"], s["block"]) for s in order] == [
        (i, arm, j) for i, arm, j, _ in spec.pieces()
    ]
    times = [
        (datetime.fromisoformat(s["started_at"]), datetime.fromisoformat(s["finished_at"])) for s in order
    ]
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(times)), "pieces ran one after another"
    assert all(s["requests"] == 4 for s in order)


def test_each_arm_gets_one_level_per_spec_level_with_the_same_prompts_in_the_order_sent(interleaved):
    _, outcome = interleaved
    for i in range(2):
        base, cand = (outcome[arm]["levels"][i] for arm in ("baseline", "candidate"))
        assert base["requests_total"] == cand["requests_total"] == 12
        assert [r["prompt_id"] for r in base["requests"]] == [r["prompt_id"] for r in cand["requests"]]
        sends = [r["send_s"] for r in base["requests"]]
        assert sends == sorted(sends) and sends[-1] > sends[0]
    level_0 = {r["prompt_id"] for r in outcome["baseline"]["levels"][0]["requests"]}
    level_1 = {r["prompt_id"] for r in outcome["baseline"]["levels"][1]["requests"]}
    assert not level_0 & level_1, "levels never reuse each other's prompts"
    # The merged arms read like any result: the gate takes them as they are.
    first = {arm: {**outcome[arm], "levels": outcome[arm]["levels"][:1]} for arm in ("baseline", "candidate")}
    data = gate_input_from_harness(baseline={"x": first["baseline"]}, candidate={"x": first["candidate"]})
    assert len(data.baseline[0].samples["tpot"]) == 12
