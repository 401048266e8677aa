"""The gate: candidate vs. baseline on the contract's `measurement` rules.

Statistical rules (`improve`, `non_inferiority`) are tested per lane and load level on the
exact bootstrap distribution of the quantile ratio (bootstrap.py), each arm resampled
independently. Every (rule, lane, level) test is one hypothesis of the family.

Holm correction — by adjusted confidence, ordered by bootstrap p-values
-----------------------------------------------------------------------
Each test's one-sided bootstrap p-value (the share of draws on the wrong side of the bar)
only orders the family (smallest p/alpha first). Holm's step-down then tests them in that
order: with r tests still open, the next one must meet its bar with its confidence bound at
level 1 - alpha/r (alpha = 1 - the rule's confidence). The first test that doesn't stops the
procedure: it and all later tests are not confirmed. The verdict is decided on the same
bound that the result shows, so a reason never contradicts its interval. With equal
confidences this is exactly Holm's procedure; with unequal ones it is the closed
Bonferroni-Holm procedure, and the family-wise error is at most the largest alpha.
The overall verdict needs every test to pass (an intersection-union test), which alone
would need no correction; Holm makes each individual Pass a claim that holds jointly.

Verdicts (see `Verdict`): Pass when confirmed; Marginal when the point estimate meets the
bar but the bound doesn't, or when data are missing or too few; Fail when the point estimate
misses the bar or the candidate's error rate exceeds `max_error_rate`.
Output stability and memory headroom are deterministic checks (deterministic.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from benchmarks_app.gate.crossover import find_crossover
from benchmarks_app.gate.deterministic import memory_checks, stability_checks
from benchmarks_app.gate.estimates import Estimate, Estimator, Key
from benchmarks_app.gate.inputs import ArmLevel, GateInput, GateInputError
from benchmarks_app.gate.method_notes import method_notes
from benchmarks_app.gate.metrics import METRICS, min_requests_for
from benchmarks_app.gate.result import (
    CheckResult,
    GateResult,
    RuleResult,
    SmallSample,
    Verdict,
    worst,
)
from benchmarks_app.gate.rules import DEFAULT_CONFIDENCE, GateRules, StatRule
from benchmarks_app.gate.sample_size import requests_needed_for
from benchmarks_app.gate.wording import (
    improve_reason,
    level_label,
    non_inferiority_reason,
    pct,
    too_few_requests_reason,
)

Correction = Literal["holm", "none"]


@dataclass
class _Test:
    rule: StatRule
    key: Key
    est: Estimate
    p_value: float

    @property
    def alpha(self) -> float:
        return 1 - self.rule.confidence


def evaluate_gate(
    data: GateInput,
    rules: GateRules,
    *,
    seed: int = 0,
    n_boot: int = 10_000,
    correction: Correction = "holm",
    min_samples: int = 5,
    max_error_rate: float = 0.05,
) -> GateResult:
    """Judge the candidate against the baseline. Deterministic for a given seed."""
    if n_boot < 100:
        raise GateInputError("n_boot must be at least 100")
    if correction not in ("holm", "none"):
        raise GateInputError("correction must be 'holm' or 'none'")
    baseline = {a.key: a for a in data.baseline}
    candidate = {a.key: a for a in data.candidate}
    keys = _all_keys(baseline, candidate, rules)
    est = Estimator(
        baseline, candidate, seed=seed, n_boot=n_boot, min_samples=min_samples, max_error_rate=max_error_rate
    )

    checks: list[CheckResult] = []
    tests: list[_Test] = []
    for rule in rules.stat_rules:
        in_scope = [k for k in keys if rule.applies_to(k[1], k[2])]  # type: ignore[arg-type]
        if not in_scope:
            checks.append(_no_levels(rule))
        needed = requests_needed_for(rule.metric, rule.confidence)
        for key in in_scope:
            e = est.get(key, rule.metric)
            if e.problem is not None:
                checks.append(_problem_check(rule, key, e))
            elif (
                needed is not None
                and (n := _requests_per_arm(baseline, candidate, key, rule.metric, e)) < needed
            ):
                checks.append(_too_few_check(rule, key, e, n, needed))
            else:
                tests.append(_Test(rule, key, e, _p_value(rule, e)))
    checks.extend(_run_tests(tests, correction))
    checks.extend(stability_checks(data, rules, sorted({k[0] for k in keys})))
    checks.extend(memory_checks(data, rules))
    order = {r: i for i, r in enumerate([*(r.rule_id for r in rules.stat_rules), "output_stability"])}
    checks.sort(
        key=lambda c: (order.get(c.rule_id, len(order)), c.lane or "", c.level_kind or "", c.level or 0)
    )

    rule_results = _rule_results(rules, checks)
    overall = worst([r.verdict for r in rule_results])
    primary_conf = rules.improve[0].confidence if rules.improve else DEFAULT_CONFIDENCE
    crossovers = tuple(
        find_crossover(est, lane, kind, levels, rules.primary_metric, primary_conf)
        for (lane, kind), levels in _levels_by_lane(baseline, candidate).items()
    )
    few = _small_samples(checks)
    return GateResult(
        verdict=overall,
        summary=_summary(overall, rule_results) + _small_sample_note(few),
        small_samples=few,
        rules=tuple(rule_results),
        checks=tuple(checks),
        crossovers=crossovers,
        seed=seed,
        n_boot=n_boot,
        correction=correction,
        method=method_notes(
            sorted(
                {
                    f"{t.rule.metric} at {level_label(t.key[1], t.key[2])} in lane {t.key[0]}"
                    for t in tests
                    if t.est.blocked
                }
            ),
            len(tests),
        ),
    )


def _all_keys(baseline: dict[Key, ArmLevel], candidate: dict[Key, ArmLevel], rules: GateRules) -> list[Key]:
    keys = set(baseline) | set(candidate)
    for lane, levels in (rules.planned or {}).items():
        keys.update((lane, kind, level) for kind, level in levels)
    return sorted(keys)


def _levels_by_lane(
    baseline: dict[Key, ArmLevel], candidate: dict[Key, ArmLevel]
) -> dict[tuple[str, str], list[float]]:
    grouped: dict[tuple[str, str], list[float]] = {}
    for lane, kind, level in sorted(set(baseline) | set(candidate)):
        grouped.setdefault((lane, kind), []).append(level)
    return grouped


def _p_value(rule: StatRule, e: Estimate) -> float:
    """One-sided bootstrap p-value of "the bar is not met" (used to order Holm's steps)."""
    if rule.kind == "improve":
        wrong = np.count_nonzero(e.draws < rule.bound)
    else:
        wrong = np.count_nonzero(1.0 / e.draws > rule.bound)
    return float((1 + wrong) / (1 + len(e.draws)))


def _run_tests(tests: list[_Test], correction: Correction) -> Iterable[CheckResult]:
    if correction == "none":
        for t in tests:
            yield _judge(t, t.alpha, adjusted=False, stopped=False)
        return
    open_tests = sorted(tests, key=lambda t: (t.p_value / t.alpha, t.rule.rule_id, t.key))
    stopped = False
    while open_tests:
        r = len(open_tests)
        t = open_tests.pop(0)
        check = _judge(t, t.alpha / r, adjusted=r > 1, stopped=stopped)
        if check.verdict is not Verdict.PASS:
            stopped = True  # Holm: once one test is not confirmed, no later one is
        yield check


def _judge(t: _Test, alpha: float, *, adjusted: bool, stopped: bool) -> CheckResult:
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
    words = improve_reason if rule.kind == "improve" else non_inferiority_reason
    reason = f"Lane {t.key[0]}: " + words(
        rule.metric, where, estimate, (lo, hi), rule.bound, rule.confidence, adjusted, verdict.value
    )
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


def _requests_per_arm(
    baseline: dict[Key, ArmLevel], candidate: dict[Key, ArmLevel], key: Key, metric: str, e: Estimate
) -> int:
    """The fewer of the two arms' requests behind a metric. Pooled inter-chunk gaps count
    their requests, not their gaps: gaps within one request are not independent draws."""
    if METRICS[metric].base != "itl_chunk":
        return min(e.n_baseline, e.n_candidate)
    b, c = baseline[key], candidate[key]
    return min(b.n_successes or e.n_baseline, c.n_successes or e.n_candidate)


def _too_few_check(rule: StatRule, key: Key, e: Estimate, n: int, needed: int) -> CheckResult:
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
    return _undecided_check(
        rule,
        key,
        e,
        estimate=estimate,
        verdict=Verdict.MARGINAL,
        reason=reason,
        requests_needed=needed,
        resampling=e.describe_resampling(),
    )


def _problem_check(rule: StatRule, key: Key, e: Estimate) -> CheckResult:
    return _undecided_check(rule, key, e, estimate=None, verdict=e.problem_verdict, reason=e.problem or "")


def _undecided_check(
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


def _no_levels(rule: StatRule) -> CheckResult:
    return CheckResult(
        rule_id=rule.rule_id,
        kind=rule.kind,
        lane=None,
        level_kind=None,
        level=None,
        metric=rule.metric,
        estimate=None,
        ci_low=None,
        ci_high=None,
        confidence=rule.confidence,
        required=rule.bound,
        verdict=Verdict.MARGINAL,
        reason=f"No tested level is within this rule's scope ({rule.describe()}).",
    )


def _rule_results(rules: GateRules, checks: list[CheckResult]) -> list[RuleResult]:
    described: list[tuple[str, str, str]] = [(r.rule_id, r.kind, r.describe()) for r in rules.stat_rules]
    if rules.greedy_exact_match_min is not None:
        described.append(
            (
                "output_stability",
                "output_stability",
                f"greedy exact match ≥ {pct(rules.greedy_exact_match_min)}",
            )
        )
    if rules.memory_headroom_min_gib is not None:
        described.append(
            ("memory_headroom", "memory_headroom", f"memory headroom ≥ {rules.memory_headroom_min_gib:g} GiB")
        )
    results = []
    for rule_id, kind, description in described:
        mine = [c for c in checks if c.rule_id == rule_id]
        verdict = worst([c.verdict for c in mine])
        results.append(RuleResult(rule_id, kind, description, verdict, _rule_reason(verdict, mine)))
    return results


def _rule_reason(verdict: Verdict, mine: list[CheckResult]) -> str:
    if not mine:
        return "Nothing was measured for this rule."
    if verdict is Verdict.PASS:
        return f"Met in all {len(mine)} checks." if len(mine) > 1 else mine[0].reason
    worst_ones = [c.reason for c in mine if c.verdict is verdict]
    more = f" (and {len(worst_ones) - 2} more)" if len(worst_ones) > 2 else ""
    return " ".join(worst_ones[:2]) + more


def _small_samples(checks: list[CheckResult]) -> tuple[SmallSample, ...]:
    """The tail-quantile tests that rest on fewer requests than their interval needs."""
    worst_by_metric: dict[str, SmallSample] = {}
    for c in checks:
        needed = min_requests_for(c.metric) if c.metric in METRICS else None
        if needed is None or c.n_baseline is None or c.n_candidate is None:
            continue
        n = min(c.n_baseline, c.n_candidate)
        if n < needed and (c.metric not in worst_by_metric or n < worst_by_metric[c.metric].n):
            worst_by_metric[c.metric] = SmallSample(c.rule_id, c.metric, n, needed)
    return tuple(worst_by_metric.values())


def _small_sample_note(few: tuple[SmallSample, ...]) -> str:
    if not few:
        return ""
    parts = [f"{METRICS[s.metric].label} rests on {s.n} requests per arm (~{s.needed} needed)" for s in few]
    return (
        " Small samples: "
        + "; ".join(parts)
        + ". A tail interval from so few requests is too narrow: this verdict is less certain than it reads."
    )


def _summary(overall: Verdict, results: list[RuleResult]) -> str:
    if not results:
        return "Marginal: the contract states no rule the gate can check."
    counts = {v: sum(r.verdict is v for r in results) for v in Verdict}
    head = (
        f"{overall.value.capitalize()}: {counts[Verdict.PASS]} of {len(results)} rules pass, "
        f"{counts[Verdict.MARGINAL]} marginal, {counts[Verdict.FAIL]} fail."
    )
    if overall is Verdict.PASS:
        return head
    first = next(r for r in results if r.verdict is overall)
    return f"{head} {first.description}: {first.reason}"
