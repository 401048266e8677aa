"""The harness reads each engine's acceptance as the level's own figures, against the
engine emulator: counters already non-zero from a previous "run" don't leak into the
level, a restart mid-level is named, vLLM's engines (DP ranks) are summed and its
per-position counts stored, SGLang's lifetime averages are never passed off as a level."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.support.launcher import Emulator
from tests.support.prompts import write_prompts
from worker.harness.loadgen import Progress
from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported
from worker.harness.runner import run_benchmark

Start = Callable[..., Emulator]
NGRAM5 = json.dumps({"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 5})
REQUESTS, MAX_TOKENS = 4, 8


def _plan(emulator: Emulator, server: str, tmp_path: Path, concurrency: list[int] | None = None) -> BenchPlan:
    return BenchPlan.model_validate(
        {
            "engine": {
                "kind": "openai",
                "base_url": emulator.base_url,
                "model": "test-model",
                "server": server,
            },
            "workload": str(write_prompts(tmp_path / "p.jsonl", REQUESTS)),
            "concurrency": concurrency or [1],
            "requests_per_level": REQUESTS,
            "max_tokens": MAX_TOKENS,
            "warmup_requests": 0,
        }
    )


def _earlier_run(emulator: Emulator, pattern: list[int], requests: int = 6) -> None:
    """Traffic before the benchmark, at another acceptance: the counters start non-zero."""
    emulator.set_pattern(pattern)
    for i in range(requests):
        body = {"model": "test-model", "prompt": f"earlier {i}", "max_tokens": MAX_TOKENS}
        assert httpx.post(emulator.base_url + "/v1/completions", json=body, timeout=30).status_code == 200


def _stored(result: BenchResult) -> Any:
    """The level's speculation as the control plane stores it (JSON, validated back)."""
    return BenchResult.model_validate(result.model_dump(mode="json")).levels[0].speculation


def test_vllm_counts_only_the_level_summed_over_engines_with_positions(
    emulator: Start, tmp_path: Path
) -> None:
    vllm = emulator("--dp-size", "2", "--speculation", NGRAM5, "--pattern", "6")
    _earlier_run(vllm, [6])  # every draft of 5 fully accepted: a since-start mean would show it
    before = vllm.counters()
    assert before["drafts"] > 0 and before["accepted_per_position"][4] > 0
    vllm.set_pattern([2, 1])  # per request: steps 2,1,2,1,2 -> 5 drafts, 3 accepted, all at position 0
    got = _stored(run_benchmark(_plan(vllm, "vllm", tmp_path)))
    assert isinstance(got, SpeculationReported), got
    assert (got.drafts, got.draft_tokens, got.accepted_tokens) == (REQUESTS * 5, REQUESTS * 25, REQUESTS * 3)
    assert got.accepted_per_position == [REQUESTS * 3, 0, 0, 0, 0]
    assert got.acceptance_rate == 3 / 25 and got.mean_acceptance_length == 1 + 3 / 5
    engines = {line.split('engine="')[1][0] for line in vllm.metrics().splitlines()
               if line.startswith("vllm:spec_decode_num_drafts_total")}  # fmt: skip
    assert engines == {"0", "1"}  # the figures above are the sum over both


def test_an_engine_restart_mid_level_is_not_reported_with_the_reason(emulator: Start, tmp_path: Path) -> None:
    vllm = emulator("--speculation", NGRAM5, "--pattern", "3", "--step-ms", "100")
    _earlier_run(vllm, [3])
    restarted: list[bool] = []

    def restart_in_second_level(p: Progress) -> None:
        # Its four requests one at a time take ~1.2 s: a progress report (every 0.5 s) lands
        # after the first one finished, so after the level's first scrape, before its last.
        if p.label == "concurrency=1" and p.done >= 1 and not restarted:
            vllm.reset_counters()  # what a restart does to an engine's counters
            restarted.append(True)

    result = run_benchmark(_plan(vllm, "vllm", tmp_path, [2, 1]), progress=restart_in_second_level)
    first, second = result.levels
    assert restarted and isinstance(first.speculation, SpeculationReported)
    assert first.speculation.drafts == REQUESTS * 3  # 8 tokens in steps of 3, 3, 2
    assert isinstance(second.speculation, SpeculationNotReported)
    assert "went backwards" in second.speculation.reason and "restarted" in second.speculation.reason


def test_tgi_mean_acceptance_length_is_the_levels_own(emulator: Start, tmp_path: Path) -> None:
    tgi = emulator("--shape", "tgi", "--speculation", json.dumps({"speculate": 2}), "--pattern", "1")
    _earlier_run(tgi, [1])  # nothing accepted before the level: a since-start mean would be lower
    tgi.set_pattern([3, 1])  # per request: steps 3,1,3,1 -> 4 steps, 4 tokens skipped
    got = _stored(run_benchmark(_plan(tgi, "tgi", tmp_path)))
    assert isinstance(got, SpeculationReported), got
    assert got.mean_acceptance_length == 2.0 and got.acceptance_rate is None
    assert "tgi_request_skipped_tokens" in got.source


def test_llamacpp_stores_acceptance_by_draft_position(emulator: Start, tmp_path: Path) -> None:
    claim = json.dumps({"speculative.types": "ngram-simple", "speculative.n_max": 4})
    llama = emulator("--shape", "llamacpp", "--metrics", "--speculation", claim, "--pattern", "5")
    _earlier_run(llama, [5])
    llama.set_pattern([3, 1])  # per request: 4 drafts, accepted 2,0,2,0 at positions 0 and 1
    got = _stored(run_benchmark(_plan(llama, "llamacpp", tmp_path)))
    assert isinstance(got, SpeculationReported), got
    assert got.accepted_per_position == [REQUESTS * 2, REQUESTS * 2, 0, 0]
    assert got.rate_by_position() == [0.5, 0.5, 0.0, 0.0] and got.drafts == REQUESTS * 4


def test_sglang_reports_each_fresh_dp_rank_and_refuses_a_lifetime_average(
    emulator: Start, tmp_path: Path
) -> None:
    claim = json.dumps({"speculative_algorithm": "NGRAM", "speculative_num_draft_tokens": 5})
    sglang = emulator("--shape", "sglang", "--dp-size", "2", "--pattern", "3,1", "--speculation", claim)
    got = _stored(run_benchmark(_plan(sglang, "sglang", tmp_path)))
    assert isinstance(got, SpeculationReported), got
    assert got.mean_acceptance_length_by_rank == [2.0, 2.0] and got.mean_acceptance_length == 2.0
    again = _stored(run_benchmark(_plan(sglang, "sglang", tmp_path)))  # the ranks now carry history
    assert isinstance(again, SpeculationNotReported)
    assert "DP rank 0, 1 had speculated before the level" in again.reason


def test_an_sglang_without_server_info_is_read_via_get_server_info(emulator: Start, tmp_path: Path) -> None:
    claim = json.dumps({"speculative_algorithm": "NGRAM", "speculative_num_draft_tokens": 5})
    sglang = emulator("--shape", "sglang", "--legacy-info-only", "--pattern", "4", "--speculation", claim)
    assert sglang.get("/server_info")[0] == 404
    got = _stored(run_benchmark(_plan(sglang, "sglang", tmp_path)))
    assert isinstance(got, SpeculationReported) and got.mean_acceptance_length == 4.0, got
