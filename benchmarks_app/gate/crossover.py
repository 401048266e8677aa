"""The crossover: the lowest load level at which the candidate stops beating the baseline."""

from __future__ import annotations

from benchmarks_app.gate.estimates import Estimator, Key
from benchmarks_app.gate.metrics import METRICS
from benchmarks_app.gate.result import Crossover, CrossoverPoint
from benchmarks_app.gate.wording import X, interval, level_label, pct


def find_crossover(
    estimator: Estimator, lane: str, level_kind: str, levels: list[float], metric: str, confidence: float
) -> Crossover:
    """Per level, the improvement ratio of `metric` with its equal-tailed interval at
    `confidence` per side (unadjusted: the crossover describes, it doesn't gate). The
    candidate beats the baseline at a level when the interval's lower end is above 1; the
    crossover is the lowest level where it does not. Levels that can't be estimated (missing
    data) are shown without a value and skipped."""
    alpha = 1 - confidence
    label = METRICS[metric].label
    points: list[CrossoverPoint] = []
    first: tuple[float, str] | None = None
    for level in sorted(levels):
        key: Key = (lane, level_kind, level)
        est = estimator.get(key, metric)
        if est.problem is not None:
            points.append(CrossoverPoint(level, None, None, None, None))
            continue
        lo, hi = est.interval(alpha)
        beats = lo > 1.0
        points.append(CrossoverPoint(level, est.estimate, lo, hi, beats, est.n_baseline, est.n_candidate))
        if not beats and first is None:
            first = (level, f"{est.estimate:.2f}{X} {interval(lo, hi)}")
    measured = [p for p in points if p.beats_baseline is not None]
    if not measured:
        return Crossover(
            lane, level_kind, metric, confidence, None, f"No level in lane {lane} could be measured."
        )
    span = f"{level_label(level_kind, measured[0].level)} to {measured[-1].level:g}"
    if first is None:
        reason = (
            f"None within the tested range ({span}): the candidate beats the baseline on {label} "
            f"at every level ({pct(confidence)} lower bound above 1{X})."
        )
        return Crossover(lane, level_kind, metric, confidence, None, reason, tuple(points))
    level, shown = first
    if level == measured[0].level:
        reason = (
            f"The candidate does not beat the baseline on {label} even at the lowest tested level, "
            f"{level_label(level_kind, level)}: {shown}."
        )
    else:
        last_win = max(p.level for p in measured if p.beats_baseline and p.level < level)
        reason = (
            f"At {level_label(level_kind, level)} the {label} speedup interval reaches 1{X} ({shown}); "
            f"the candidate beats the baseline up to {level_label(level_kind, last_win)}."
        )
    return Crossover(lane, level_kind, metric, confidence, level, reason, tuple(points))
