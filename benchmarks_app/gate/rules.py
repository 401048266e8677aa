"""The gate's rules, read from a contract's `measurement` section (plain dict)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from benchmarks_app.gate.inputs import GateInputError, LevelKind
from benchmarks_app.gate.metrics import METRICS
from benchmarks_app.gate.wording import X

DEFAULT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class StatRule:
    """An `improve` (superiority) or `non_inferiority` rule.

    improve: the improvement ratio (baseline/candidate for latency, candidate/baseline for
    throughput) must be ≥ `bound`. non_inferiority: the worsening ratio (the inverse) must be
    ≤ `bound`. The rule applies to concurrency levels ≤ `max_concurrency` and rate levels ≤
    `max_rate` when given, else to every tested level.
    """

    rule_id: str
    kind: Literal["improve", "non_inferiority"]
    metric: str
    bound: float
    confidence: float
    max_concurrency: float | None = None
    max_rate: float | None = None

    def applies_to(self, level_kind: LevelKind, level: float) -> bool:
        if level_kind == "concurrency" and self.max_concurrency is not None:
            return level <= self.max_concurrency
        if level_kind == "rate" and self.max_rate is not None:
            return level <= self.max_rate
        # A rate level under a rule scoped by concurrency only is out of scope: the rule's
        # author bounded the load, and a request rate is not comparable to a concurrency.
        return not (level_kind == "rate" and self.max_concurrency is not None and self.max_rate is None)

    def describe(self) -> str:
        label = METRICS[self.metric].label
        if self.kind == "improve":
            text = f"{label} ≥ {_num(self.bound)}{X} better"
        else:
            text = f"{label} ≤ {_num(self.bound)}{X} of baseline"
        scope = []
        if self.max_concurrency is not None:
            scope.append(f"concurrency ≤ {_num(self.max_concurrency)}")
        if self.max_rate is not None:
            scope.append(f"rate ≤ {_num(self.max_rate)} req/s")
        text += f" at {' and '.join(scope)}" if scope else " at every level"
        return f"{text}, {_num(self.confidence * 100)}% confidence"


HISTORY_MAX_VERSIONS = 20  # contracts_app.document.schema.MAX_HISTORY_VERSIONS


@dataclass(frozen=True)
class HistoryRule:
    """`measurement.history`: on each lane and level, the candidate's metric is no worse
    than `1 + max_regression` times each of the route's last `versions` approved versions'
    (their own benchmarks' candidate arm), a non-inferiority test per earlier version.
    After Keptn's relative criteria (keptn/spec, service_level_objective.md: `comparison`
    with `compare_with: several_results` and `number_of_comparison_results`, and a pass
    criterion such as `<=+10%`), but each comparison with its interval, not a point."""

    versions: int
    metric: str
    max_regression: float
    confidence: float = DEFAULT_CONFIDENCE
    rule_id: str = "history"

    @property
    def bound(self) -> float:
        return 1.0 + self.max_regression

    def as_stat_rule(self) -> StatRule:
        """The non-inferiority rule each comparison with one earlier version tests."""
        return StatRule(self.rule_id, "non_inferiority", self.metric, self.bound, self.confidence)

    def describe(self) -> str:
        label = METRICS[self.metric].label
        return (
            f"{label} ≤ {_num(self.bound)}{X} of each of the last {self.versions} approved "
            f"version{'s' if self.versions != 1 else ''}, {_num(self.confidence * 100)}% confidence"
        )


@dataclass(frozen=True)
class GateRules:
    improve: tuple[StatRule, ...] = ()
    non_inferiority: tuple[StatRule, ...] = ()
    greedy_exact_match_min: float | None = None
    memory_headroom_min_gib: float | None = None
    # lane -> the levels the contract plans; a planned level nobody measured is reported.
    planned: Mapping[str, tuple[tuple[LevelKind, float], ...]] | None = None
    history: HistoryRule | None = None

    @property
    def stat_rules(self) -> tuple[StatRule, ...]:
        return self.improve + self.non_inferiority

    @property
    def primary_metric(self) -> str:
        return self.improve[0].metric if self.improve else "tpot_p50"

    @classmethod
    def from_measurement(cls, measurement: Mapping[str, Any]) -> GateRules:
        """Read the `measurement` section of a contract document; GateInputError on nonsense."""
        if not isinstance(measurement, Mapping):
            raise GateInputError("measurement must be a mapping")
        improve = tuple(_stat_rule(raw, "improve", i) for i, raw in enumerate(_list(measurement, "improve")))
        non_inf = tuple(
            _stat_rule(raw, "non_inferiority", i)
            for i, raw in enumerate(_list(measurement, "non_inferiority"))
        )
        stability = measurement.get("output_stability") or {}
        if not isinstance(stability, Mapping):
            raise GateInputError("measurement.output_stability must be a mapping")
        exact_min = _opt_number(stability, "greedy_exact_match_min", "measurement.output_stability")
        if exact_min is not None and not 0 <= exact_min <= 1:
            raise GateInputError("measurement.output_stability.greedy_exact_match_min must be in [0, 1]")
        headroom = _opt_number(measurement, "memory_headroom_min_gib", "measurement")
        return cls(
            improve,
            non_inf,
            exact_min,
            headroom,
            _planned(measurement.get("workloads") or {}),
            _history(measurement.get("history")),
        )


def _num(x: float) -> str:
    return f"{x:g}"


def _list(section: Mapping[str, Any], key: str) -> list[Any]:
    value = section.get(key) or []
    if not isinstance(value, list):
        raise GateInputError(f"measurement.{key} must be a list")
    return value


def _opt_number(section: Mapping[str, Any], key: str, where: str) -> float | None:
    value = section.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise GateInputError(f"{where}.{key} must be a number")
    return float(value)


def _stat_rule(raw: Any, kind: Literal["improve", "non_inferiority"], index: int) -> StatRule:
    where = f"measurement.{kind}[{index}]"
    if not isinstance(raw, Mapping):
        raise GateInputError(f"{where} must be a mapping")
    metric = raw.get("metric")
    if metric not in METRICS:
        raise GateInputError(f"{where}.metric: unknown metric {metric!r}; known: {', '.join(METRICS)}")
    bound_key = "min_ratio" if kind == "improve" else "max_ratio"
    bound = _opt_number(raw, bound_key, where)
    if bound is None or bound <= 0:
        raise GateInputError(f"{where}.{bound_key} must be a positive number")
    confidence = _opt_number(raw, "confidence", where) or DEFAULT_CONFIDENCE
    if not 0 < confidence < 1:
        raise GateInputError(f"{where}.confidence must be in (0, 1)")
    return StatRule(
        rule_id=f"{kind}[{index}]",
        kind=kind,
        metric=metric,
        bound=bound,
        confidence=confidence,
        max_concurrency=_opt_number(raw, "max_concurrency", where),
        max_rate=_opt_number(raw, "max_rate", where),
    )


def _history(raw: Any) -> HistoryRule | None:
    if raw is None:
        return None
    where = "measurement.history"
    if not isinstance(raw, Mapping):
        raise GateInputError(f"{where} must be a mapping")
    metric = raw.get("metric")
    if metric not in METRICS:
        raise GateInputError(f"{where}.metric: unknown metric {metric!r}; known: {', '.join(METRICS)}")
    versions = raw.get("versions")
    if (
        isinstance(versions, bool)
        or not isinstance(versions, int)
        or not 1 <= versions <= HISTORY_MAX_VERSIONS
    ):
        raise GateInputError(f"{where}.versions must be a whole number from 1 to {HISTORY_MAX_VERSIONS}")
    regression = _opt_number(raw, "max_regression", where)
    if regression is None or not 0 <= regression <= 1:
        raise GateInputError(f"{where}.max_regression must be a number in [0, 1]")
    confidence = _opt_number(raw, "confidence", where) or DEFAULT_CONFIDENCE
    if not 0 < confidence < 1:
        raise GateInputError(f"{where}.confidence must be in (0, 1)")
    return HistoryRule(versions, metric, regression, confidence)


def _planned(workloads: Any) -> dict[str, tuple[tuple[LevelKind, float], ...]]:
    if not isinstance(workloads, Mapping):
        raise GateInputError("measurement.workloads must be a mapping of lane to workload")
    planned: dict[str, tuple[tuple[LevelKind, float], ...]] = {}
    for lane, workload in workloads.items():
        if not isinstance(workload, Mapping):
            raise GateInputError(f"measurement.workloads.{lane} must be a mapping")
        levels: list[tuple[LevelKind, float]] = []
        for key, kind in (("concurrency", "concurrency"), ("rate", "rate"), ("rates", "rate")):
            values = workload.get(key)
            if values is None:
                continue
            for v in values if isinstance(values, list) else [values]:
                if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
                    raise GateInputError(f"measurement.workloads.{lane}.{key} must hold positive numbers")
                levels.append((kind, float(v)))  # type: ignore[arg-type]
        planned[str(lane)] = tuple(levels)
    return planned
