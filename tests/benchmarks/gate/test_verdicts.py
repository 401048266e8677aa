"""The gate's verdicts on synthetic samples whose true answer is known."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from benchmarks_app.gate import (
    ArmLevel,
    GateInput,
    GateInputError,
    MemoryInput,
    StabilityInput,
    Verdict,
    evaluate_gate,
)
from benchmarks_app.gate.metrics import METRICS
from tests.benchmarks.gate.synthetic import arm, improve, non_inferiority, pareto_noise, rules


def gate(
    base_scale: float, cand_scale: float, gate_rules, *, n: int = 200, data_seed: int = 1, seed: int = 0
):
    rng = np.random.default_rng(data_seed)
    data = GateInput([arm(rng, scale=base_scale, n=n)], [arm(rng, scale=cand_scale, n=n)])
    return evaluate_gate(data, gate_rules, seed=seed)


def test_a_true_1_5x_improvement_passes():
    result = gate(1.0, 1 / 1.5, improve(min_ratio=1.2))
    check = result.checks[0]
    assert result.verdict is Verdict.PASS
    assert check.ci_low >= 1.2
    assert check.ci_low < 1.5 < check.ci_high


def test_no_difference_fails_an_improve_rule():
    result = gate(1.0, 1.0, improve(min_ratio=1.2))
    assert result.verdict is Verdict.FAIL
    assert "below the bar" in result.checks[0].reason


def test_a_5_percent_regression_within_a_10_percent_margin_passes_non_inferiority():
    result = gate(1.0, 1.05, non_inferiority("ttft_p95", 1.10), n=20_000)
    check = result.checks[0]
    assert result.verdict is Verdict.PASS
    assert 1.0 < check.estimate < 1.10 and check.ci_high <= 1.10


def test_a_20_percent_regression_fails_non_inferiority():
    result = gate(1.0, 1.20, non_inferiority("ttft_p95", 1.10), n=2_000)
    assert result.verdict is Verdict.FAIL
    assert "worse, beyond the margin" in result.checks[0].reason


def test_heavy_tailed_noise_does_not_flip_the_verdict_across_seeds():
    gate_rules = rules(
        improve=[{"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95}],
        non_inferiority=[{"metric": "ttft_p95", "max_ratio": 1.10}],
    )
    verdicts = set()
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)  # new data each time, not only new resamples
        base = arm(rng, scale=1.0, n=400, draw=pareto_noise())
        cand = arm(rng, scale=1 / 1.5, n=400, draw=pareto_noise())
        verdicts.add(evaluate_gate(GateInput([base], [cand]), gate_rules, seed=seed).verdict)
    assert verdicts == {Verdict.PASS}


def test_no_difference_under_heavy_tails_fails_for_every_seed():
    verdicts = set()
    for seed in range(10):
        rng = np.random.default_rng(200 + seed)
        data = GateInput(
            [arm(rng, scale=1, draw=pareto_noise(1.5))], [arm(rng, scale=1, draw=pareto_noise(1.5))]
        )
        verdicts.add(evaluate_gate(data, improve(min_ratio=1.2), seed=seed).verdict)
    assert verdicts == {Verdict.FAIL}


def test_an_estimate_that_meets_the_bar_without_the_evidence_is_marginal():
    rng = np.random.default_rng(3)
    shape = rng.lognormal(0.0, 1.0, 10)
    base = arm(rng, scale=1, n=10)
    cand = arm(rng, scale=1, n=10)
    base.samples["tpot"][:] = 1.25 * 30 * shape  # the point ratio is exactly 1.25 ...
    cand.samples["tpot"][:] = 30 * shape[::-1]  # ... with ten very spread samples
    result = evaluate_gate(GateInput([base], [cand]), improve(min_ratio=1.2))
    check = result.checks[0]
    assert check.estimate == pytest.approx(1.25)
    assert check.verdict is Verdict.MARGINAL
    assert "not enough evidence" in check.reason


def test_the_same_seed_gives_the_same_result_and_another_seed_other_intervals():
    gate_rules = rules(
        improve=[{"metric": "tpot_p50", "min_ratio": 1.2}],
        non_inferiority=[{"metric": "e2e_p99", "max_ratio": 1.1}],
    )
    first = gate(1.0, 0.7, gate_rules, seed=7).as_dict()
    again = gate(1.0, 0.7, gate_rules, seed=7).as_dict()
    other = gate(1.0, 0.7, gate_rules, seed=8).as_dict()
    assert first == again
    assert first["checks"][0]["ci_low"] != other["checks"][0]["ci_low"]
    assert first["verdict"] == other["verdict"]


def test_the_result_is_strict_json():
    result = gate(1.0, 0.7, improve()).as_dict()
    text = json.dumps(result, allow_nan=False)
    assert json.loads(text)["verdict"] == "pass"
    assert {"rules", "checks", "crossover", "seed", "n_boot", "method", "summary"} <= result.keys()


def test_reasons_read_like_the_specification():
    reason = gate(1.0, 1 / 1.84, improve(min_ratio=1.2), n=2_000).checks[0].reason
    assert re.fullmatch(
        r"Lane chat: TPOT p50 1\.\d\d× better at concurrency 1 \[1\.\d\d, 1\.\d\d\], required ≥ 1\.2× "
        r"\(lower bound at 95% confidence\)\.",
        reason,
    ), reason


def test_an_improve_rule_applies_only_up_to_its_max_concurrency():
    rng = np.random.default_rng(4)
    base = [arm(rng, scale=1, level=c) for c in (1, 4, 16)]
    cand = [arm(rng, scale=s, level=c) for c, s in ((1, 0.6), (4, 0.7), (16, 1.3))]
    result = evaluate_gate(GateInput(base, cand), improve(min_ratio=1.2, max_concurrency=4))
    assert [c.level for c in result.checks] == [1, 4]
    assert result.verdict is Verdict.PASS


def test_a_throughput_rule_compares_ratios_of_means():
    result = gate(1.0, 1 / 1.5, improve("output_tokens_per_s", 1.2))
    check = result.checks[0]
    assert check.verdict is Verdict.PASS
    assert check.estimate == pytest.approx(1.5, rel=0.1)


def test_output_stability_and_memory_are_deterministic_checks():
    rng = np.random.default_rng(5)
    data = GateInput(
        [arm(rng, scale=1)],
        [arm(rng, scale=0.6)],
        stability={"chat": StabilityInput(0.97, 100, "prompt 12 at output token 40")},
        memory=MemoryInput(headroom_gib=6.5, peak_gib=73.5),
    )
    result = evaluate_gate(
        data, rules(output_stability={"greedy_exact_match_min": 0.99}, memory_headroom_min_gib=4)
    )
    by_rule = {r.rule_id: r for r in result.rules}
    assert by_rule["output_stability"].verdict is Verdict.FAIL
    assert "97% of 100 prompts" in by_rule["output_stability"].reason
    assert "prompt 12 at output token 40" in by_rule["output_stability"].reason
    assert by_rule["memory_headroom"].verdict is Verdict.PASS
    assert result.verdict is Verdict.FAIL


def test_unreported_stability_and_memory_are_marginal_not_a_crash():
    result = gate(
        1.0, 0.6, rules(output_stability={"greedy_exact_match_min": 0.99}, memory_headroom_min_gib=4)
    )
    assert {r.verdict for r in result.rules} == {Verdict.MARGINAL}
    assert "not measured" in result.rules[0].reason and "not reported" in result.rules[1].reason


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_every_metric_a_rule_may_name_is_judged(metric):
    rng = np.random.default_rng(9)
    base = arm(rng, scale=1, n=400)
    # A faster candidate: latencies shrink; with the same tokens, throughput rises.
    cand = arm(rng, scale=1 / 1.5, n=400)
    result = evaluate_gate(GateInput([base], [cand]), improve(metric, 1.2))
    assert result.verdict is Verdict.PASS, (metric, result.summary)
    assert result.as_dict()["speedup"][0]["metric"] == metric


def test_samples_are_cleaned_and_unknown_sample_names_refused():
    clean = ArmLevel("chat", "concurrency", 1, {"tpot": np.array([1.0, np.nan, -2.0, 3.0])})
    assert clean.samples["tpot"].tolist() == [1.0, 3.0]
    with pytest.raises(GateInputError, match="unknown sample names"):
        ArmLevel("chat", "concurrency", 1, {"tpot_ms": np.ones(3)})
