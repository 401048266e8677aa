"""From the harness's result JSON to the gate, end to end."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks_app.gate import (
    GateInputError,
    GateRules,
    Verdict,
    arm_levels_from_harness,
    evaluate_gate,
    exact_match_rate,
    gate_input_from_harness,
)


def harness_result(rng, *, speedup: float, levels=(1, 4), n=40, errors=0, headroom=None, diverge=()) -> dict:
    """A result shaped like `specpact-worker bench --out` writes it."""
    out = []
    for c in levels:
        requests = []
        for i in range(n):
            chunks = rng.lognormal(np.log(60 / speedup), 0.2, 12)
            ids = [i, 1, 2, 3] if i not in diverge else [i, 1, 9, 3]
            requests.append(
                {
                    "prompt_id": f"p{i}",
                    "ttft_ms": float(rng.lognormal(np.log(200), 0.2)),
                    "tpot_ms": float(rng.lognormal(np.log(30 / speedup), 0.2)),
                    "e2e_ms": float(rng.lognormal(np.log(4000 / speedup), 0.2)),
                    "itl_chunk_ms": chunks.tolist(),
                    "chunk_tokens": [2] * 12,
                    "output_tokens": 24,
                    "error": None,
                    "output_token_ids": ids,
                }
            )
        for i in range(errors):
            requests.append(
                {"prompt_id": f"e{i}", "error": "HTTP 500", "ttft_ms": None, "output_token_ids": None}
            )
        level = {"concurrency": c, "output_tokens_per_s": 100.0 * speedup, "requests": requests}
        if headroom is not None:
            level["memory"] = {"peak_gib": 70.0 + c, "headroom_gib": headroom - c}
        out.append(level)
    return {"levels": out}


def test_failed_requests_are_counted_and_their_timings_ignored():
    levels = arm_levels_from_harness(
        harness_result(np.random.default_rng(1), speedup=1, errors=3), lane="chat"
    )
    first = levels[0]
    assert (first.level_kind, first.level, first.n_requests, first.n_errors) == ("concurrency", 1.0, 43, 3)
    assert len(first.samples["ttft"]) == 40 and len(first.samples["itl_chunk"]) == 480
    assert first.output_tokens_per_s == 100.0 and len(first.output_tokens) == len(first.e2e_ms) == 40


def test_a_rate_level_and_a_bad_level_entry():
    levels = arm_levels_from_harness({"levels": [{"rate": 2.5, "requests": []}]}, lane="chat")
    assert (levels[0].level_kind, levels[0].level, levels[0].n_requests) == ("rate", 2.5, 0)
    with pytest.raises(GateInputError, match="needs a 'concurrency' or a 'rate'"):
        arm_levels_from_harness({"levels": [{"requests": []}]}, lane="chat")
    with pytest.raises(GateInputError, match="'levels' list"):
        arm_levels_from_harness({}, lane="chat")


def test_exact_match_pairs_by_prompt_id_and_names_the_first_divergence():
    base = [{"prompt_id": "a", "output_token_ids": [1, 2, 3]}, {"prompt_id": "b", "output_token_ids": [4, 5]}]
    cand = [{"prompt_id": "b", "output_token_ids": [4, 6]}, {"prompt_id": "a", "output_token_ids": [1, 2, 3]}]
    s = exact_match_rate(base, cand)
    assert (s.exact_match_rate, s.compared, s.first_divergence) == (0.5, 2, "prompt b at output token 1")
    assert exact_match_rate(base, [{"prompt_id": "a", "output_token_ids": None}]) is None


def test_harness_results_to_a_verdict():
    rng = np.random.default_rng(2)
    data = gate_input_from_harness(
        baseline={"chat": harness_result(rng, speedup=1, headroom=12)},
        candidate={"chat": harness_result(rng, speedup=1.6, headroom=10, diverge=(7,))},
    )
    assert data.memory.headroom_gib == 6 and data.memory.peak_gib == 74
    assert data.stability["chat"].compared == 80 and data.stability["chat"].exact_match_rate == 78 / 80
    gate_rules = GateRules.from_measurement(
        {
            "improve": [{"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95, "max_concurrency": 4}],
            # p50: 40 requests per arm are too few for a p95 to be decided (sample_size.py)
            "non_inferiority": [{"metric": "ttft_p50", "max_ratio": 1.5}],
            "output_stability": {"greedy_exact_match_min": 0.95},
            "memory_headroom_min_gib": 4,
        }
    )
    result = evaluate_gate(data, gate_rules, seed=1)
    assert result.verdict is Verdict.PASS, result.summary
    assert result.crossovers[0].level is None


def test_stability_the_harness_computed_wins():
    rng = np.random.default_rng(3)
    data = gate_input_from_harness(
        baseline={"chat": harness_result(rng, speedup=1)},
        candidate={"chat": harness_result(rng, speedup=1.5)},
        stability={"chat": {"exact_match_rate": 0.9, "compared": 10}},
    )
    assert (data.stability["chat"].exact_match_rate, data.stability["chat"].compared) == (0.9, 10)
    assert data.memory is None
    with pytest.raises(GateInputError, match="numeric exact_match_rate"):
        gate_input_from_harness(baseline={}, candidate={}, stability={"chat": {"exact_match_rate": "all"}})
