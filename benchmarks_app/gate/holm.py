"""One family of statistical tests judged by Holm's step-down (see evaluate.py's notes),
and the checks a test becomes: passed, marginal or failed with its interval, or undecided
(no estimate, or too few requests). evaluate.py runs the contract's rules through it;
history.py runs the comparisons with the route's earlier approved versions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from benchmarks_app.gate.estimates import Estimate, Key
from benchmarks_app.gate.inputs import ArmLevel
from benchmarks_app.gate.metrics import METRICS
from benchmarks_app.gate.result import CheckResult, Verdict
from benchmarks_app.gate.rules import StatRule
from benchmarks_app.gate.sample_size import requests_needed_for
from benchmarks_app.gate.wording import (
    improve_reason,
    level_label,
    non_inferiority_reason,
    too_few_requests_reason,
)

Correction = Literal["holm", "none"]


@dataclass
class Test:
    rule: StatRule
    key: Key
    est: Estimate
    p_value: float
    # What the candidate is compared with, in the reason's words ("version 3 (release 12)").
    against: str = "baseline"

    @property
    def alpha(self) -> float:
        return 1 - self.rule.confidence


def p_value(rule: StatRule, e: Estimate) -> float:
    """One-sided bootstrap p-value of "the bar is not met" (used to order Holm's steps)."""
    if rule.kind == "improve":
        wrong = np.count_nonzero(e.draws < rule.bound)
    else:
        wrong = np.count_nonzero(1.0 / e.draws > rule.bound)
    return float((1 + wrong) / (1 + len(e.draws)))


def run_tests(tests: list[Test], correction: Correction) -> Iterable[CheckResult]:
    return (check for _, check in run_tests_paired(tests, correction))


def run_tests_paired(tests: list[Test], correction: Correction) -> Iterable[tuple[Test, CheckResult]]:
    """Each test with its check, in the order Holm's step-down judged them."""
    if correction == "none":
        for t in tests:
            yield t, judge(t, t.alpha, adjusted=False, stopped=False)
        return
    open_tests = sorted(tests, key=lambda t: (t.p_value / t.alpha, t.rule.rule_id, t.key))
    stopped = False
    while open_tests:
        r = len(open_tests)
        t = open_tests.pop(0)
        check = judge(t, t.alpha / r, adjusted=r > 1, stopped=stopped)
        if check.verdict is not Verdict.PASS:
            stopped = True  # Holm: once one test is not confirmed, no later one is
        yield t, check


def judge(t: Test, alpha: float, *, adjusted: bool, stopped: bool) -> CheckResult:
    rule, e = t.rule, t.est
    where = level_label(t.key[1], t.key[2])
    if rule.kind == "improve":
        estimate = e.estimate
        lo, hi = e.interval(alpha)
        meets_point, meets_bound = estimate >= rule.bound, lo >= rule.bound
    else:
        estimate = 1.0 / e.estimate
        r_lo, r_hi = e.interval(alpha)
        lo, hi = 1.0 / r_hi, 1.0 / r_lo
        meets_point, meets_bound = estimate <= rule.bound, hi <= rule.bound
    if meets_bound and not stopped:
        verdict = Verdict.PASS
    elif meets_point:
        verdict = Verdict.MARGINAL
    else:
        verdict = Verdict.FAIL
    args = (rule.metric, where, estimate, (lo, hi), rule.bound, rule.confidence, adjusted, verdict.value)
    if rule.kind == "improve":
        words = improve_reason(*args)
    else:
        words = non_inferiority_reason(*args, against=t.against)
    reason = f"Lane {t.key[0]}: " + words
    if meets_bound and stopped:
        reason += " Not confirmed: Holm's step-down stopped at an earlier test."
    return CheckResult(
        rule_id=rule.rule_id,
        kind=rule.kind,
        lane=t.key[0],
        level_kind=t.key[1],
        level=t.key[2],
        metric=rule.metric,
        estimate=estimate,
        ci_low=lo,
        ci_high=hi,
        confidence=1 - alpha,
        required=rule.bound,
        verdict=verdict,
        reason=reason,
        p_value=t.p_value,
        n_baseline=e.n_baseline,
        n_candidate=e.n_candidate,
        requests_needed=requests_needed_for(rule.metric, rule.confidence),
        resampling=e.describe_resampling(),
    )


def requests_per_arm(
    baseline: dict[Key, ArmLevel], candidate: dict[Key, ArmLevel], key: Key, metric: str, e: Estimate
) -> int:
    """The fewer of the two arms' requests behind a metric. Pooled inter-chunk gaps count
    their requests, not their gaps: gaps within one request are not independent draws."""
    if METRICS[metric].base != "itl_chunk":
        return min(e.n_baseline, e.n_candidate)
    b, c = baseline[key], candidate[key]
    return min(b.n_successes or e.n_baseline, c.n_successes or e.n_candidate)


def too_few_check(rule: StatRule, key: Key, e: Estimate, n: int, needed: int) -> CheckResult:
    estimate = e.estimate if rule.kind == "improve" else 1.0 / e.estimate
    reason = f"Lane {key[0]}: " + too_few_requests_reason(
        rule.metric,
        level_label(key[1], key[2]),
        estimate,
        e.n_baseline,
        e.n_candidate,
        n,
        needed,
        rule.confidence,
    )
    return undecided_check(
        rule,
        key,
        e,
        estimate=estimate,
        verdict=Verdict.MARGINAL,
        reason=reason,
        requests_needed=needed,
        resampling=e.describe_resampling(),
    )


def problem_check(rule: StatRule, key: Key, e: Estimate) -> CheckResult:
    return undecided_check(rule, key, e, estimate=None, verdict=e.problem_verdict, reason=e.problem or "")


def undecided_check(
    rule: StatRule,
    key: Key,
    e: Estimate,
    *,
    estimate: float | None,
    verdict: Verdict,
    reason: str,
    requests_needed: int | None = None,
    resampling: str | None = None,
) -> CheckResult:
    """A check without an interval: the estimate could not be made, or too few requests."""
    return CheckResult(
        rule_id=rule.rule_id,
        kind=rule.kind,
        lane=key[0],
        level_kind=key[1],
        level=key[2],
        metric=rule.metric,
        estimate=estimate,
        ci_low=None,
        ci_high=None,
        confidence=rule.confidence,
        required=rule.bound,
        verdict=verdict,
        reason=reason,
        n_baseline=e.n_baseline,
        n_candidate=e.n_candidate,
        requests_needed=requests_needed,
        resampling=resampling,
    )
