"""Holm's correction across rules, and the crossover."""

from __future__ import annotations

import numpy as np

from benchmarks_app.gate import GateInput, Verdict, evaluate_gate
from benchmarks_app.gate.estimates import Estimator
from tests.benchmarks.gate.synthetic import arm, improve, rules


def test_holm_turns_a_borderline_pass_into_marginal_when_another_rule_shares_the_family():
    rng = np.random.default_rng(11)
    base, cand = arm(rng, scale=1, n=300), arm(rng, scale=0.8, n=300)
    # Put the bar where the improvement's one-sided bootstrap p-value is 3.5%: confirmed at
    # 95% alone, not at the 97.5% Holm requires of the first of two tests.
    draws = Estimator(
        {base.key: base}, {cand.key: cand}, seed=0, n_boot=10_000, min_samples=5, max_error_rate=0.05
    )
    bar = float(np.quantile(draws.get(base.key, "tpot_p50").draws, 0.035))
    borderline = {"metric": "tpot_p50", "min_ratio": bar, "confidence": 0.95}
    hopeless = {"metric": "e2e_p50", "min_ratio": 3.0, "confidence": 0.95}  # a 1.25x speedup cannot meet 3x
    data = GateInput([base], [cand])

    alone = evaluate_gate(data, rules(improve=[borderline]))
    uncorrected = evaluate_gate(data, rules(improve=[borderline, hopeless]), correction="none")
    corrected = evaluate_gate(data, rules(improve=[borderline, hopeless]))

    assert alone.checks[0].verdict is Verdict.PASS
    assert uncorrected.checks[0].verdict is Verdict.PASS
    held = corrected.checks[0]
    assert held.verdict is Verdict.MARGINAL
    assert held.confidence == 0.975
    # The reason quotes the rule's one figure; the per-test level is in the data.
    assert "lower bound at 95% confidence (Holm-adjusted) does not" in held.reason
    assert "97.5%" not in held.reason


def test_holm_does_not_hurt_a_clear_improvement():
    rng = np.random.default_rng(12)
    data = GateInput([arm(rng, scale=1)], [arm(rng, scale=0.5)])
    gate_rules = rules(
        improve=[{"metric": m, "min_ratio": 1.2} for m in ("tpot_p50", "tpot_p90", "e2e_p50")],
        non_inferiority=[{"metric": "ttft_p95", "max_ratio": 1.1}],
    )
    result = evaluate_gate(data, gate_rules)
    assert result.verdict is Verdict.PASS
    assert sorted(c.confidence for c in result.checks) == [0.9875, 0.9833333333333333, 0.975, 0.95][::-1]


def planted(speedups: dict[float, float], n: int = 400, seed: int = 21) -> GateInput:
    rng = np.random.default_rng(seed)
    base = [arm(rng, scale=1, level=c, n=n) for c in speedups]
    cand = [arm(rng, scale=1 / s, level=c, n=n) for c, s in speedups.items()]
    return GateInput(base, cand)


def test_a_crossover_planted_at_concurrency_16_is_found():
    data = planted({1: 2.0, 2: 1.8, 4: 1.5, 8: 1.3, 16: 1.0, 32: 0.8})
    crossover = evaluate_gate(data, improve(max_concurrency=4)).crossovers[0]
    assert crossover.level == 16
    assert [p.beats_baseline for p in crossover.points] == [True, True, True, True, False, False]
    assert "beats the baseline up to concurrency 8" in crossover.reason
    assert crossover.points[0].estimate > crossover.points[0].ci_low > 1.5


def test_no_crossover_within_the_tested_range():
    crossover = evaluate_gate(planted({1: 2.0, 4: 1.6, 16: 1.3}), improve()).crossovers[0]
    assert crossover.level is None
    assert crossover.reason.startswith("None within the tested range (concurrency 1 to 16)")


def test_a_candidate_that_never_helps_crosses_over_at_the_lowest_level():
    crossover = evaluate_gate(planted({1: 1.0, 4: 0.9}), improve()).crossovers[0]
    assert crossover.level == 1
    assert "even at the lowest tested level" in crossover.reason


def test_the_crossover_uses_the_first_improve_rules_metric_and_rate_levels():
    rng = np.random.default_rng(22)
    base = [arm(rng, scale=1, level=r, kind="rate") for r in (0.5, 2, 8)]
    cand = [arm(rng, scale=s, level=r, kind="rate") for r, s in ((0.5, 0.5), (2, 0.6), (8, 1.2))]
    result = evaluate_gate(GateInput(base, cand), improve("e2e_p90", 1.2))
    crossover = result.crossovers[0]
    assert (crossover.metric, crossover.level_kind, crossover.level) == ("e2e_p90", "rate", 8)
    assert "rate 8 req/s" in crossover.reason
