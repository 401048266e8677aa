"""`measurement.history`: the candidate against the route's last approved versions.

On each lane the candidate's own arm is compared, level by level, with the candidate arm
of each of the last `versions` approved versions' benchmarks (`GateInput.history`,
newest first): a non-inferiority test of the same kind as `non_inferiority` rules (the
same quantile-ratio bootstrap or batch-means interval, estimates.py), the earlier version
in the baseline's place. The comparisons are one Holm family of their own (holm.py), so a
contract's other rules keep the confidence they had without this one; the overall
verdict needs every check to pass either way.

Fewer earlier versions with a result on a lane than the rule asks for is Marginal, said
in words ("only 1 of 3 earlier approved versions has a result on lane chat"): the versions
there are compared all the same, but the rule is never a silent pass. An earlier version
not measured at a level the candidate was is Marginal at that level, for the same reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from benchmarks_app.gate.bootstrap import quantile
from benchmarks_app.gate.estimates import Estimator, Key
from benchmarks_app.gate.holm import (
    Correction,
    Test,
    p_value,
    problem_check,
    requests_per_arm,
    run_tests_paired,
    too_few_check,
)
from benchmarks_app.gate.inputs import ArmLevel, EarlierVersion
from benchmarks_app.gate.metrics import METRICS
from benchmarks_app.gate.result import CheckResult, Verdict
from benchmarks_app.gate.rules import HistoryRule
from benchmarks_app.gate.sample_size import requests_needed_for
from benchmarks_app.gate.wording import level_label

HISTORY_NOTE = (
    "measurement.history: on each lane and level, the candidate against each earlier approved "
    "version's own benchmark (its candidate arm, in the baseline's place), a non-inferiority test "
    "with the same interval as the rules'; these comparisons are one Holm family of their own, "
    "apart from the contract's other rules. Fewer earlier versions with a result than asked is Marginal"
)


def history_checks(
    rule: HistoryRule,
    candidate: dict[Key, ArmLevel],
    earlier: Sequence[EarlierVersion],
    *,
    seed: int,
    n_boot: int,
    min_samples: int,
    max_error_rate: float,
    correction: Correction,
) -> list[CheckResult]:
    stat = rule.as_stat_rule()
    needed = requests_needed_for(rule.metric, rule.confidence)
    considered = list(earlier)[: rule.versions]
    checks: list[CheckResult] = []
    tests: list[tuple[Test, EarlierVersion]] = []
    for lane in sorted({k[0] for k in candidate}):
        with_result = [v for v in considered if lane in v.lanes()]
        if len(with_result) < rule.versions:
            pruned = [v for v in considered if lane in v.pruned]
            checks.append(_shortfall(rule, lane, len(with_result), len(considered), pruned))
        keys = sorted(k for k in candidate if k[0] == lane)
        for version in with_result:
            base = {a.key: a for a in version.candidate}
            est = Estimator(
                base,
                candidate,
                seed=seed,
                n_boot=n_boot,
                min_samples=min_samples,
                max_error_rate=max_error_rate,
                baseline_name=_name(version),
            )
            against = _name(version)
            for key in keys:
                if key not in base:
                    checks.append(_not_measured(rule, key, version))
                    continue
                e = est.get(key, rule.metric)
                if e.problem is not None:
                    check = problem_check(stat, key, e)  # its reason names the version
                    checks.append(_evidence(check, version, base[key], candidate[key]))
                elif (
                    needed is not None
                    and (n := requests_per_arm(base, candidate, key, rule.metric, e)) < needed
                ):
                    check = too_few_check(stat, key, e, n, needed)
                    checks.append(
                        _evidence(check, version, base[key], candidate[key], f"Against {against}: ")
                    )
                else:
                    tests.append((Test(stat, key, e, p_value(stat, e), against=against), version))
    by_test = {id(t): v for t, v in tests}
    for t, check in run_tests_paired([t for t, _ in tests], correction):
        version = by_test[id(t)]
        base = {a.key: a for a in version.candidate}
        checks.append(_evidence(check, version, base[t.key], candidate[t.key]))
    checks.sort(key=lambda c: (c.lane or "", c.level_kind or "", c.level or 0, -_number(c)))
    return checks


def level_value(arm: ArmLevel, metric: str) -> float | None:
    """The metric's own value for one arm at one level (ms for a latency quantile; the
    harness's measured tokens/s or requests/s for a throughput): the evidence shown."""
    m = METRICS[metric]
    if m.quantile is None:
        return arm.output_tokens_per_s if metric == "output_tokens_per_s" else arm.requests_per_s
    samples = arm.samples.get(m.base)
    return quantile(samples, m.quantile) if samples is not None and len(samples) else None


def _name(version: EarlierVersion) -> str:
    return f"version {version.number} (release {version.release_id})"


def _number(check: CheckResult) -> int:
    return int((check.compared or {}).get("version") or 0)


def _evidence(
    check: CheckResult, version: EarlierVersion, earlier: ArmLevel, candidate: ArmLevel, prefix: str = ""
) -> CheckResult:
    compared: dict[str, Any] = {
        "version": version.number,
        "release_id": version.release_id,
        "value": level_value(earlier, check.metric),
        "candidate_value": level_value(candidate, check.metric),
        "unit": METRICS[check.metric].unit,
    }
    reason = check.reason
    if prefix:  # a reason without the comparison named in it (no estimate, too few requests)
        reason = prefix + reason
    return replace(check, kind="history", reason=reason, compared=compared)


def _shortfall(
    rule: HistoryRule, lane: str, with_result: int, approved: int, pruned: Sequence[EarlierVersion] = ()
) -> CheckResult:
    if with_result == 0:
        reason = (
            f"Lane {lane}: no earlier approved version has a result on lane {lane} ({rule.versions} asked)"
        )
    else:
        noun = "version" if rule.versions == 1 else "versions"
        verb = "has" if with_result == 1 else "have"
        reason = (
            f"Lane {lane}: only {with_result} of {rule.versions} earlier approved {noun} {verb} "
            f"a result on lane {lane}"
        )
    if approved < rule.versions:
        reason += f" (the route has {approved} earlier approved version{'s' if approved != 1 else ''})"
    for version in pruned:
        reason += (
            f" ({_name(version)}'s raw samples on lane {lane} were pruned on {version.pruned[lane]} "
            "by the retention setting, RAW_SAMPLES_RETENTION_DAYS)"
        )
    reason += ": the comparison with history is incomplete."
    return _undecided(rule, lane, None, None, reason)


def _not_measured(rule: HistoryRule, key: Key, version: EarlierVersion) -> CheckResult:
    where = level_label(key[1], key[2])
    reason = f"Lane {key[0]}: {_name(version)} was not measured at {where}: nothing to compare with."
    check = _undecided(rule, key[0], key[1], key[2], reason)
    return replace(
        check,
        compared={"version": version.number, "release_id": version.release_id, "value": None},
    )


def _undecided(
    rule: HistoryRule, lane: str, level_kind: str | None, level: float | None, reason: str
) -> CheckResult:
    return CheckResult(
        rule_id=rule.rule_id,
        kind="history",
        lane=lane,
        level_kind=level_kind,
        level=level,
        metric=rule.metric,
        estimate=None,
        ci_low=None,
        ci_high=None,
        confidence=rule.confidence,
        required=rule.bound,
        verdict=Verdict.MARGINAL,
        reason=reason,
    )
