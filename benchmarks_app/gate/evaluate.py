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

from benchmarks_app.gate.crossover import find_crossover
from benchmarks_app.gate.deterministic import memory_checks, stability_checks
from benchmarks_app.gate.estimates import Estimator, Key
from benchmarks_app.gate.history import HISTORY_NOTE, history_checks
from benchmarks_app.gate.holm import (
    Correction,
    Test,
    p_value,
    problem_check,
    requests_per_arm,
    run_tests,
    too_few_check,
)
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
from benchmarks_app.gate.wording import level_label, pct


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
    tests: list[Test] = []
    for rule in rules.stat_rules:
        in_scope = [k for k in keys if rule.applies_to(k[1], k[2])]  # type: ignore[arg-type]
        if not in_scope:
            checks.append(_no_levels(rule))
        needed = requests_needed_for(rule.metric, rule.confidence)
        for key in in_scope:
            e = est.get(key, rule.metric)
            if e.problem is not None:
                checks.append(problem_check(rule, key, e))
            elif (
                needed is not None
                and (n := requests_per_arm(baseline, candidate, key, rule.metric, e)) < needed
            ):
                checks.append(too_few_check(rule, key, e, n, needed))
            else:
                tests.append(Test(rule, key, e, p_value(rule, e)))
    checks.extend(run_tests(tests, correction))
    checks.extend(stability_checks(data, rules, sorted({k[0] for k in keys})))
    checks.extend(memory_checks(data, rules))
    if rules.history is not None:
        checks.extend(
            history_checks(
                rules.history,
                candidate,
                data.history,
                seed=seed,
                n_boot=n_boot,
                min_samples=min_samples,
                max_error_rate=max_error_rate,
                correction=correction,
            )
        )
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
        method={
            **method_notes(
                sorted(
                    {
                        f"{t.rule.metric} at {level_label(t.key[1], t.key[2])} in lane {t.key[0]}"
                        for t in tests
                        if t.est.blocked
                    }
                ),
                len(tests),
            ),
            **({"history": HISTORY_NOTE} if rules.history is not None else {}),
        },
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
    if rules.history is not None:
        described.append(("history", "history", rules.history.describe()))
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
