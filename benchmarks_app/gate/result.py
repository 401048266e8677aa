"""The gate's result: verdicts with reasons, JSON-ready through `GateResult.as_dict()`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    """Pass: the evidence meets the bar at the stated (Holm-adjusted) confidence.
    Marginal: not enough evidence either way: the point estimate meets the bar but its
    confidence bound does not, or the data needed are missing or too few.
    Fail: the point estimate misses the bar, a deterministic check fails, or the
    candidate's error rate is too high."""

    PASS = "pass"  # noqa: S105 (a verdict, not a password)
    MARGINAL = "marginal"
    FAIL = "fail"


_RANK = {Verdict.PASS: 0, Verdict.MARGINAL: 1, Verdict.FAIL: 2}


def worst(verdicts: list[Verdict]) -> Verdict:
    return max(verdicts, key=_RANK.__getitem__) if verdicts else Verdict.MARGINAL


def _clean(value: Any) -> Any:
    """JSON has no NaN/Infinity: a number that isn't finite becomes None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


@dataclass(frozen=True)
class CheckResult:
    """One rule at one lane and level (statistical), or one deterministic check.

    For `improve`, estimate/ci are the improvement ratio (≥ 1: the candidate is better) and
    `required` is a lower bar; for `non_inferiority` they are the worsening ratio
    (candidate/baseline for latency) and `required` is an upper bar. The interval is
    equal-tailed at `confidence` per side: its bound on the bar's side is the one-sided
    confidence bound the verdict used (so a 95% one-sided test shows a 90% interval).
    """

    rule_id: str
    kind: str
    lane: str | None
    level_kind: str | None
    level: float | None
    metric: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float | None
    required: float | None
    verdict: Verdict
    reason: str
    p_value: float | None = None
    n_baseline: int | None = None
    n_candidate: int | None = None
    # The requests per arm this rule's quantile needs before Pass or Fail (sample_size.py);
    # None for throughputs and deterministic checks.
    requests_needed: int | None = None
    # How each arm's samples were resampled (independent or block bootstrap, and why).
    resampling: str | None = None
    # `history` checks only: the earlier version compared with (its number, the release that
    # approved it, its value and the candidate's at this level, and their unit).
    compared: Mapping[str, Any] | None = None


def _check_dict(check: CheckResult) -> dict[str, Any]:
    out = {**asdict(check), "verdict": check.verdict.value}
    if check.compared is None:
        del out["compared"]  # only history checks carry it: other checks read as they did
    else:
        out["compared"] = dict(check.compared)
    return out


@dataclass(frozen=True)
class RuleResult:
    rule_id: str
    kind: str
    description: str
    verdict: Verdict
    reason: str


@dataclass(frozen=True)
class CrossoverPoint:
    level: float
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    beats_baseline: bool | None  # None: not measurable at this level
    # Requests per arm behind the estimate: an overview shows them beside the speedup.
    n_baseline: int | None = None
    n_candidate: int | None = None


@dataclass(frozen=True)
class Crossover:
    """The lowest level whose speedup interval includes or falls below 1 (None: none)."""

    lane: str
    level_kind: str
    metric: str
    confidence: float
    level: float | None
    reason: str
    points: tuple[CrossoverPoint, ...] = ()


@dataclass(frozen=True)
class SmallSample:
    """A tail-quantile metric tested on fewer requests per arm (`n`, the fewest at any
    level) than its interval needs (`needed`)."""

    rule_id: str
    metric: str
    n: int
    needed: int


@dataclass(frozen=True)
class GateResult:
    verdict: Verdict
    summary: str
    rules: tuple[RuleResult, ...]
    checks: tuple[CheckResult, ...]
    crossovers: tuple[Crossover, ...]
    seed: int
    n_boot: int
    correction: str
    method: dict[str, str] = field(default_factory=dict)
    small_samples: tuple[SmallSample, ...] = ()

    def headline_speedups(self) -> list[dict[str, Any]]:
        """Per lane, the primary metric's improvement at the lowest measured level: the one
        number an overview or the fleet heatmap shows for a route and lane."""
        out = []
        for c in self.crossovers:
            first = next((p for p in c.points if p.estimate is not None), None)
            if first is not None:
                out.append(
                    {
                        "lane": c.lane,
                        "metric": c.metric,
                        "level_kind": c.level_kind,
                        "level": first.level,
                        "estimate": first.estimate,
                        "ci_low": first.ci_low,
                        "ci_high": first.ci_high,
                        "n_baseline": first.n_baseline,
                        "n_candidate": first.n_candidate,
                    }
                )
        return out

    def as_dict(self) -> dict[str, Any]:
        return _clean(
            {
                "verdict": self.verdict.value,
                "summary": self.summary,
                "rules": [{**asdict(r), "verdict": r.verdict.value} for r in self.rules],
                "checks": [_check_dict(c) for c in self.checks],
                "crossover": [
                    {
                        "lane": c.lane,
                        "level_kind": c.level_kind,
                        "metric": c.metric,
                        "confidence": c.confidence,
                        "level": c.level,
                        "reason": c.reason,
                        "levels": [asdict(p) for p in c.points],
                    }
                    for c in self.crossovers
                ],
                "speedup": self.headline_speedups(),
                "seed": self.seed,
                "n_boot": self.n_boot,
                "correction": self.correction,
                "method": dict(self.method),
                "small_samples": [asdict(s) for s in self.small_samples],
            }
        )
