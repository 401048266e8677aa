"""Two ways a gate claims more than its samples carry, and what it does instead: too few
requests for the rule's quantile (Marginal, with the number needed), and successive
requests that are not independent (a block bootstrap, named in the verdict)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks_app.gate import ArmLevel, GateInput, Verdict, evaluate_gate
from benchmarks_app.gate.autocorrelation import block_length, lag1_autocorrelation, resampling_plan
from benchmarks_app.gate.sample_size import requests_needed
from tests.benchmarks.gate.synthetic import arm, improve, non_inferiority


@pytest.mark.parametrize(
    ("q", "confidence"), [(0.5, 0.95), (0.9, 0.95), (0.95, 0.95), (0.99, 0.95), (0.95, 0.99), (0.5, 0.8)]
)
def test_the_needed_n_is_the_smallest_whose_extreme_order_statistics_bound_the_quantile(q, confidence):
    n = requests_needed(q, confidence)
    alpha = 1 - confidence
    worst = max(q, 1 - q)
    assert worst**n <= alpha < worst ** (n - 1)


def test_known_values():
    assert [requests_needed(q, 0.95) for q in (0.5, 0.9, 0.95, 0.99)] == [5, 29, 59, 299]


def test_below_the_needed_requests_a_clear_improvement_is_marginal_and_says_how_many():
    rng = np.random.default_rng(3)
    data = GateInput([arm(rng, scale=1.0, n=40)], [arm(rng, scale=0.5, n=40)])
    result = evaluate_gate(data, non_inferiority("ttft_p95", 1.1), seed=0)
    check = result.checks[0]
    assert check.verdict is Verdict.MARGINAL and result.verdict is Verdict.MARGINAL
    assert check.requests_needed == 59
    assert "needs 59 requests per arm" in check.reason
    assert "40 baseline and 40 candidate" in check.reason
    assert check.ci_low is None and check.estimate < 1  # the candidate is faster; still undecided


def test_at_the_needed_requests_the_same_improvement_is_decided():
    rng = np.random.default_rng(3)
    data = GateInput([arm(rng, scale=1.0, n=59)], [arm(rng, scale=0.5, n=59)])
    result = evaluate_gate(data, non_inferiority("ttft_p95", 1.1), seed=0)
    assert result.checks[0].verdict is Verdict.PASS
    assert result.as_dict()["checks"][0]["requests_needed"] == 59


def test_a_clear_regression_on_too_few_requests_is_marginal_not_fail():
    rng = np.random.default_rng(4)
    data = GateInput([arm(rng, scale=1.0, n=4)], [arm(rng, scale=3.0, n=4)])
    result = evaluate_gate(data, improve("tpot_p50", 1.2), seed=0, min_samples=1)
    assert result.checks[0].verdict is Verdict.MARGINAL
    assert "needs 5 requests per arm" in result.checks[0].reason


def _ar1(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    z = np.empty(n)
    z[0] = rng.normal()
    for t in range(1, n):
        z[t] = phi * z[t - 1] + np.sqrt(1 - phi**2) * rng.normal()
    return 30.0 * np.exp(0.3 * z)


def _tpot_arm(x: np.ndarray) -> ArmLevel:
    return ArmLevel("chat", "concurrency", 1, {"tpot": x}, n_requests=len(x))


def test_autocorrelated_samples_get_longer_blocks_and_a_wider_interval():
    rng = np.random.default_rng(5)
    base, cand = _ar1(rng, 300, 0.8), _ar1(rng, 300, 0.8)
    assert lag1_autocorrelation(base) > 0.6
    plan = resampling_plan(base)
    assert plan.blocked and plan.significant and plan.block >= 7  # n^(1/3) = 7 at least
    assert block_length(base) >= 3
    result = evaluate_gate(GateInput([_tpot_arm(base)], [_tpot_arm(cand)]), improve("tpot_p50", 1.0), seed=0)
    check = result.checks[0]
    assert "circular block bootstrap" in check.resampling and ", significant)" in check.resampling
    assert "Block-resampled: 1 of 1 tests" in result.method["autocorrelation"]
    # The same values in a shuffled order carry no serial dependence: the lag test is not
    # significant, and the interval is narrower (too narrow for the ordered series).
    shuffled = [_tpot_arm(rng.permutation(base))], [_tpot_arm(rng.permutation(cand))]
    plain = evaluate_gate(GateInput(*shuffled), improve("tpot_p50", 1.0), seed=0).checks[0]
    assert "not significant" in plain.resampling
    assert (plain.ci_high / plain.ci_low) < (check.ci_high / check.ci_low)


def test_below_30_requests_an_arm_keeps_the_exact_independent_bootstrap():
    rng = np.random.default_rng(6)
    data = GateInput([arm(rng, scale=1.0, n=29)], [arm(rng, scale=0.5, n=29)])
    result = evaluate_gate(data, improve("tpot_p50", 1.2), seed=0)
    assert "independent bootstrap" in result.checks[0].resampling
    assert "fewer than 30 requests" in result.checks[0].resampling
    assert "independent bootstrap throughout" in result.method["autocorrelation"]


def test_the_throughput_interval_is_batch_means_and_says_so():
    rng = np.random.default_rng(6)
    data = GateInput([arm(rng, scale=1.0, n=64)], [arm(rng, scale=0.7, n=64)])
    result = evaluate_gate(data, improve("output_tokens_per_s", 1.0), seed=0)
    check = result.checks[0]
    assert "batch means" in check.resampling and "8 and 8 consecutive batches" in check.resampling
    assert check.ci_low < check.estimate < check.ci_high
