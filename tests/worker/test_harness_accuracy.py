"""The harness against the reference server's truth at 1, 16 and 256 concurrent streams.

The truth is what the server did, read from its own clock (CLOCK_MONOTONIC, shared by
every process on the machine): TTFT = first chunk written - request received; TPOT =
(last chunk written - first chunk written) / (tokens - 1). The server slows down with the
number of active streams, like a batching engine, and sends 1, 3, 2, 4 tokens per chunk
like a speculative one.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from tests.support.prompts import write_prompts
from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.results.speculation import SpeculationReported
from worker.harness.runner import run_benchmark
from worker.workloads import load_workload

# Timing accuracy is measured against wall-clock truth: run it alone, not beside other
# tests on the same two cores (make test-serial).
pytestmark = pytest.mark.serial

SCHEDULE = (
    "--ttft-ms",
    "100",
    "--ttft-per-stream-ms",
    "0.2",
    "--step-ms",
    "20",
    "--step-per-stream-ms",
    "0.1",
)


def _within(measured: float, truth: float) -> bool:
    return abs(measured - truth) <= max(0.02 * truth, 1.0)


def _ttft_within(measured: float, truth: float, concurrency: int) -> bool:
    """The server's truth starts when its handler runs; the client's TTFT also holds the
    time the server took to accept and parse the request, which no server timestamp sees.
    With 256 connections and the client on the same two cores that wait is 1-6 ms of a
    ~150 ms TTFT on an idle machine (measured, always positive; it failed this test in about
    a third of idle runs at 2%), and 10.7 ms (+7%) on CI's busier machine (failed the run of
    2026-12-03 at 6%), so there only the upper side gets that room: 10%. Never
    under-reported."""
    if concurrency < 256:
        return _within(measured, truth)
    return -max(0.02 * truth, 1.0) <= measured - truth <= 0.10 * truth


@pytest.mark.parametrize(("concurrency", "requests"), [(1, 20), (16, 160), (256, 768)])
def test_ttft_and_tpot_medians_match_the_servers_truth(
    reference_server, tmp_path: Path, concurrency: int, requests: int
) -> None:
    server = reference_server(*SCHEDULE)
    workload = write_prompts(tmp_path / "prompts.jsonl", requests + 4, tag=f"c{concurrency}-")
    plan = BenchPlan.model_validate(
        {
            "engine": {"kind": "openai", "base_url": server.base_url, "model": "ref", "server": "vllm"},
            "workload": str(workload),
            "concurrency": [concurrency],
            "requests_per_level": requests,
            "max_tokens": 64,
            "warmup_requests": 2,
        }
    )
    server.reset_truth()
    result = run_benchmark(plan)
    BenchResult.model_validate(result.model_dump(mode="json"))  # what the control plane will do
    level = result.levels[0]
    assert level.errors == 0 and level.completed == requests

    texts = {p.id: p.text for p in load_workload(str(workload)).prompts}
    truth = {t["prompt"]: t for t in server.truth()}
    true_ttft, true_tpot = [], []
    for r in level.requests:
        t = truth[texts[r.prompt_id]]
        writes, tokens = t["writes"], sum(t["chunk_tokens"])
        true_ttft.append((writes[0] - t["recv"]) * 1000)
        true_tpot.append((writes[-1] - writes[0]) * 1000 / (tokens - 1))
        assert r.chunk_tokens == t["chunk_tokens"]  # exactly, chunk by chunk
        assert r.output_tokens_source == "usage" and r.chunk_tokens_source == "token_ids"

    assert level.ttft_ms is not None and level.tpot_ms is not None and level.tokens_per_chunk is not None
    ttft, tpot = level.ttft_ms.p50, level.tpot_ms.p50
    ttft_true, tpot_true = statistics.median(true_ttft), statistics.median(true_tpot)
    print(
        f"\nconcurrency {concurrency}: TTFT p50 {ttft:.2f} ms (truth {ttft_true:.2f}), "
        f"TPOT p50 {tpot:.3f} ms (truth {tpot_true:.3f}), tokens/chunk {level.tokens_per_chunk}"
    )
    assert _ttft_within(ttft, ttft_true, concurrency), (ttft, ttft_true)
    assert _within(tpot, tpot_true), (tpot, tpot_true)
    assert level.tokens_per_chunk.mean == 2.5 and level.tokens_per_chunk.max == 4
    # The server's counters: chunks of 1,3,2,4 tokens as drafts of 3 → 6 of 12 accepted.
    assert isinstance(level.speculation, SpeculationReported)
    assert level.speculation.acceptance_rate == 0.5
    assert level.speculation.mean_acceptance_length == 2.5


def test_open_loop_rate_sends_on_schedule(reference_server, tmp_path: Path) -> None:
    server = reference_server("--ttft-ms", "20", "--step-ms", "5")
    workload = write_prompts(tmp_path / "prompts.jsonl", 80, tag="rate-")
    plan = BenchPlan.model_validate(
        {
            "engine": {"kind": "openai", "base_url": server.base_url, "model": "ref"},
            "workload": str(workload),
            "rates": [40.0],
            "arrival": "gamma",
            "gamma_shape": 0.5,
            "requests_per_level": 60,
            "max_tokens": 16,
            "warmup_requests": 0,
            "seed": 7,
        }
    )
    result = run_benchmark(plan)
    level = result.levels[0]
    assert level.rate == 40.0 and level.errors == 0
    assert all(r.scheduled_s is not None for r in level.requests)
    assert level.max_send_lag_ms is not None and level.max_send_lag_ms < 50
    # No token ids asked of a generic server: usage total == chunks tells one token each
    # only where that holds; here chunks carry 1-4 tokens, so per-chunk counts are unknown.
    assert level.tokens_per_chunk is not None and level.tokens_per_chunk.p50 is None
    assert level.tokens_per_chunk.mean == pytest.approx(16 / 7)  # 1+3+2+4+1+3+2 in 7 chunks
    again = run_benchmark(plan)  # the same seed gives the same arrival schedule
    assert [r.scheduled_s for r in again.levels[0].requests] == pytest.approx(
        [r.scheduled_s for r in level.requests], abs=0.02
    )
