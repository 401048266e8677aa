"""A candidate's value over the lane's levels, and the test that one is better than another.

Value: the geometric mean over the levels of the primary metric's improvement ratio
(the gate's Estimate, baseline / candidate for a latency), floored at 1 for a candidate
whose engine takes a token schedule (above its crossover it runs with speculation off,
so it loses nothing there). Its bootstrap draws are the per-level draws combined: every
candidate's estimator resamples the baseline from the same generator (bootstrap.rng_for
keys by seed, arm, lane, level and metric), so in the ratio of two candidates' values the
baseline's resampling cancels and the test is paired on the common baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from advice_app.strategy.types import Candidate
from benchmarks_app.gate.estimates import Estimate, Estimator, Key
from benchmarks_app.gate.holm import Test, p_value, run_tests_paired
from benchmarks_app.gate.inputs import FloatArray
from benchmarks_app.gate.result import Verdict
from benchmarks_app.gate.rules import StatRule


@dataclass(frozen=True)
class Value:
    candidate: Candidate
    point: float
    log_draws: FloatArray
    n: int  # the fewest requests per arm behind it

    def interval(self, alpha: float) -> tuple[float, float]:
        lo, hi = np.quantile(self.log_draws, [alpha, 1 - alpha])
        return float(np.exp(lo)), float(np.exp(hi))


def value_of(
    candidate: Candidate, estimator: Estimator, lane: str, levels: Sequence[float], metric: str
) -> Value | None:
    """None when no level can be estimated (too few requests, failures)."""
    ests = [estimator.get((lane, "concurrency", lv), metric) for lv in levels]
    usable = [e for e in ests if e.problem is None]
    if not usable:
        return None
    m = min(len(e.draws) for e in usable)
    floor = _floor(candidate.schedulable)
    logs = np.mean([np.log(np.maximum(e.draws[:m], floor)) for e in usable], axis=0)
    point = point_value([e.estimate for e in usable], schedulable=candidate.schedulable)
    return Value(candidate, point, logs, min(min(e.n_baseline, e.n_candidate) for e in usable))


def point_value(speedups: Sequence[float], *, schedulable: bool) -> float:
    """The value's point from the per-level speedups that could be estimated: what the
    advisor ranks by, and what the advice page's Pareto front draws from the stored curves."""
    floor = _floor(schedulable)
    return float(np.exp(np.mean([np.log(max(s, floor)) for s in speedups])))


def _floor(schedulable: bool) -> float:
    # A schedulable candidate runs with speculation off above its crossover: it loses nothing there.
    return 1.0 if schedulable else 0.0


@dataclass(frozen=True)
class Comparison:
    """The leader against another candidate: the ratio of their values with its interval."""

    other: Candidate
    ratio: float
    ci_low: float
    ci_high: float
    confirmed: bool  # the leader is better, by Holm's step-down over the family
    log_draws: FloatArray
    n: int


def compare_with_leader(
    leader: Value, others: Sequence[Value], metric: str, confidence: float, key: Key
) -> list[Comparison]:
    """One family of one-sided tests "the leader's value is above the other's", judged by
    the gate's Holm step-down (holm.run_tests_paired) at `confidence`."""
    tests, by_id = [], {}
    for v in others:
        draws = np.exp(leader.log_draws[: len(v.log_draws)] - v.log_draws[: len(leader.log_draws)])
        rule = StatRule(f"advice:{v.candidate.name}", "improve", metric, 1.0, confidence)
        est = Estimate(leader.point / v.point, draws, leader.n, v.n)
        tests.append(Test(rule, key, est, p_value(rule, est)))
        by_id[rule.rule_id] = v
    out = []
    for t, check in run_tests_paired(tests, "holm"):
        v = by_id[t.rule.rule_id]
        out.append(
            Comparison(
                other=v.candidate,
                ratio=float(t.est.estimate),
                ci_low=float(check.ci_low if check.ci_low is not None else np.nan),
                ci_high=float(check.ci_high if check.ci_high is not None else np.nan),
                confirmed=check.verdict is Verdict.PASS,
                log_draws=np.log(t.est.draws),
                n=min(leader.n, v.n),
            )
        )
    return out
