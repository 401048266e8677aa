"""The gate's reasons in words: one place, so every verdict reads the same way."""

from __future__ import annotations

from benchmarks_app.gate.metrics import METRICS

X = "\u00d7"  # the multiplication sign, as in "1.84x better" (spelled out: ruff flags it)


def level_label(level_kind: str, level: float) -> str:
    if level_kind == "rate":
        return f"rate {level:g} req/s"
    return f"concurrency {level:g}"


def pct(confidence: float) -> str:
    return f"{100 * confidence:.3g}%"


def interval(lo: float, hi: float) -> str:
    return f"[{lo:.2f}, {hi:.2f}]"


def _level(confidence: float, adjusted: bool) -> str:
    """One confidence figure per rule, the one the contract states: the per-test level
    Holm's correction uses is in the check's data and explained in the method notes."""
    return pct(confidence) + (" confidence (Holm-adjusted)" if adjusted else " confidence")


def improve_reason(
    metric: str,
    where: str,
    estimate: float,
    ci: tuple[float, float],
    bar: float,
    confidence: float,
    adjusted: bool,
    verdict: str,
) -> str:
    label = METRICS[metric].label
    direction = "better" if estimate >= 1 else "(worse than baseline)"
    head = f"{label} {estimate:.2f}{X} {direction} at {where} {interval(*ci)}, required ≥ {bar:g}{X}"
    level = _level(confidence, adjusted)
    if verdict == "pass":
        return f"{head} (lower bound at {level})."
    if verdict == "marginal":
        return (
            f"{head}: the estimate meets the bar but the lower bound at {level} does not "
            "(not enough evidence)."
        )
    return f"{head}: the estimate is below the bar."


def non_inferiority_reason(
    metric: str,
    where: str,
    estimate: float,
    ci: tuple[float, float],
    bar: float,
    confidence: float,
    adjusted: bool,
    verdict: str,
) -> str:
    label = METRICS[metric].label
    head = f"{label} {estimate:.2f}{X} of baseline at {where} {interval(*ci)}, allowed ≤ {bar:g}{X}"
    level = _level(confidence, adjusted)
    if verdict == "pass":
        return f"{head} (upper bound at {level})."
    if verdict == "marginal":
        return (
            f"{head}: the estimate is within the margin but the upper bound at {level} is not "
            "(not enough evidence)."
        )
    return f"{head}: the candidate is {100 * (estimate - 1):.0f}% worse, beyond the margin."
