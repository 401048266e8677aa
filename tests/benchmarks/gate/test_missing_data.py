"""Missing or bad data gives a verdict with a reason, never a crash."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks_app.gate import ArmLevel, GateInput, GateInputError, Verdict, evaluate_gate
from tests.benchmarks.gate.synthetic import arm, improve, rules


def test_too_few_successful_requests_is_marginal_with_the_counts():
    rng = np.random.default_rng(31)
    data = GateInput([arm(rng, scale=1, n=50)], [arm(rng, scale=0.5, n=3)])
    check = evaluate_gate(data, improve()).checks[0]
    assert check.verdict is Verdict.MARGINAL
    assert check.reason == (
        "Too few TPOT p50 samples at concurrency 1 in lane chat (baseline 50, candidate 3); "
        "at least 5 per arm needed."
    )


def test_a_candidate_error_rate_above_the_threshold_fails():
    rng = np.random.default_rng(32)
    data = GateInput([arm(rng, scale=1)], [arm(rng, scale=0.5, n=80, errors=20)])
    check = evaluate_gate(data, improve()).checks[0]
    assert check.verdict is Verdict.FAIL
    assert "The candidate failed 20 of 100 requests (20%)" in check.reason


def test_a_baseline_error_rate_above_the_threshold_is_marginal():
    rng = np.random.default_rng(33)
    data = GateInput([arm(rng, scale=1, n=80, errors=20)], [arm(rng, scale=0.5)])
    check = evaluate_gate(data, improve()).checks[0]
    assert check.verdict is Verdict.MARGINAL
    assert "not trustworthy" in check.reason


def test_a_planned_level_nobody_measured_is_reported():
    rng = np.random.default_rng(34)
    gate_rules = rules(
        workloads={"chat": {"concurrency": [1, 8]}},
        improve=[{"metric": "tpot_p50", "min_ratio": 1.2}],
    )
    result = evaluate_gate(GateInput([arm(rng, scale=1)], [arm(rng, scale=0.5)]), gate_rules)
    assert [c.verdict for c in result.checks] == [Verdict.PASS, Verdict.MARGINAL]
    assert (
        result.checks[1].reason
        == "concurrency 8 was not measured for the baseline and candidate in lane chat."
    )
    assert result.verdict is Verdict.MARGINAL


def test_a_rule_with_no_level_in_scope_is_marginal():
    rng = np.random.default_rng(35)
    data = GateInput([arm(rng, scale=1, level=16)], [arm(rng, scale=0.5, level=16)])
    check = evaluate_gate(data, improve(max_concurrency=4)).checks[0]
    assert check.verdict is Verdict.MARGINAL
    assert check.reason.startswith("No tested level is within this rule's scope")


def test_empty_arms_and_zero_latencies_do_not_crash():
    empty = ArmLevel("chat", "concurrency", 1, {})
    result = evaluate_gate(GateInput([empty], [empty]), improve())
    assert result.verdict is Verdict.MARGINAL
    zeros = ArmLevel("chat", "concurrency", 1, {"tpot": np.zeros(10)})
    result = evaluate_gate(GateInput([zeros], [zeros]), improve())
    assert "the ratio is undefined" in result.checks[0].reason
    assert evaluate_gate(GateInput([], []), rules()).verdict is Verdict.MARGINAL


def test_bad_inputs_are_refused_with_a_message():
    with pytest.raises(GateInputError, match="level_kind must be"):
        ArmLevel("chat", "batch", 1, {})  # type: ignore[arg-type]
    with pytest.raises(GateInputError, match="level must be a positive number"):
        ArmLevel("chat", "concurrency", 0, {})
    with pytest.raises(GateInputError, match="same lane and level twice"):
        a = ArmLevel("chat", "concurrency", 1, {})
        GateInput([a, a], [])
    with pytest.raises(GateInputError, match="n_boot"):
        evaluate_gate(GateInput([], []), rules(), n_boot=10)
