"""The gate's deterministic checks: output stability (greedy outputs token-identical to the
baseline's) and the candidate's memory headroom. No statistics: a measured value against the
contract's bar, or Marginal when it was not measured."""

from __future__ import annotations

from collections.abc import Iterable

from benchmarks_app.gate.inputs import GateInput
from benchmarks_app.gate.result import CheckResult, Verdict
from benchmarks_app.gate.rules import GateRules
from benchmarks_app.gate.wording import pct


def stability_checks(data: GateInput, rules: GateRules, lanes: list[str]) -> Iterable[CheckResult]:
    required = rules.greedy_exact_match_min
    if required is None:
        return
    for lane in lanes or sorted(data.stability):
        s = data.stability.get(lane)
        if s is None or s.compared == 0:
            verdict, rate = Verdict.MARGINAL, None
            reason = (
                f"Output stability was not measured in lane {lane} (it needs greedy decoding on both arms)."
            )
        else:
            rate = s.exact_match_rate
            verdict = Verdict.PASS if rate >= required else Verdict.FAIL
            of = f" of {s.compared} prompts" if s.compared is not None else " of prompts"
            reason = (
                f"Greedy outputs token-identical to the baseline's for {pct(rate)}{of} "
                f"in lane {lane}, required ≥ {pct(required)}."
            )
            if verdict is Verdict.FAIL and s.first_divergence:
                reason += f" First divergence: {s.first_divergence}."
        yield _deterministic_check(
            "output_stability", lane, "greedy_exact_match", rate, required, verdict, reason
        )


def memory_checks(data: GateInput, rules: GateRules) -> Iterable[CheckResult]:
    required = rules.memory_headroom_min_gib
    if required is None:
        return
    mem = data.memory
    if mem is None or mem.headroom_gib is None:
        verdict, headroom = Verdict.MARGINAL, None
        reason = f"The candidate's memory headroom was not reported; required ≥ {required:g} GiB."
    else:
        headroom = mem.headroom_gib
        verdict = Verdict.PASS if headroom >= required else Verdict.FAIL
        peak = f" (peak {mem.peak_gib:.1f} GiB)" if mem.peak_gib is not None else ""
        reason = f"Candidate memory headroom {headroom:.1f} GiB{peak}, required ≥ {required:g} GiB."
    yield _deterministic_check("memory_headroom", None, "headroom_gib", headroom, required, verdict, reason)


def _deterministic_check(
    rule_id: str,
    lane: str | None,
    metric: str,
    value: float | None,
    required: float,
    verdict: Verdict,
    reason: str,
) -> CheckResult:
    return CheckResult(
        rule_id=rule_id,
        kind=rule_id,
        lane=lane,
        level_kind=None,
        level=None,
        metric=metric,
        estimate=value,
        ci_low=None,
        ci_high=None,
        confidence=None,
        required=required,
        verdict=verdict,
        reason=reason,
    )
