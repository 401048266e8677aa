"""The gate's reasons in words: one place, so every verdict reads the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    *,
    against: str = "baseline",
) -> str:
    label = METRICS[metric].label
    head = f"{label} {estimate:.2f}{X} of {against} at {where} {interval(*ci)}, allowed ≤ {bar:g}{X}"
    level = _level(confidence, adjusted)
    if verdict == "pass":
        return f"{head} (upper bound at {level})."
    if verdict == "marginal":
        return (
            f"{head}: the estimate is within the margin but the upper bound at {level} is not "
            "(not enough evidence)."
        )
    return f"{head}: the candidate is {100 * (estimate - 1):.0f}% worse, beyond the margin."


def per_arm(n_baseline: int | None, n_candidate: int | None) -> str | None:
    """'n=12 per arm', or each arm's count when they differ; None when neither is known."""
    if n_baseline is None and n_candidate is None:
        return None
    if n_baseline == n_candidate:
        return f"n={n_baseline} per arm"
    shown = ["?" if n is None else str(n) for n in (n_baseline, n_candidate)]
    return f"n={shown[0]} baseline, {shown[1]} candidate"


def speedup_words(
    estimate: float,
    ci_low: float | None,
    ci_high: float | None,
    n_baseline: int | None,
    n_candidate: int | None,
) -> str:
    """A speedup with what it rests on: '2.34× [1.41, 6.72], n=12' (the interval and the
    requests per arm; either left out when the stored result has none)."""
    words = f"{estimate:.2f}{X}"
    if ci_low is not None and ci_high is not None:
        words += f" {interval(ci_low, ci_high)}"
    n = per_arm(n_baseline, n_candidate)
    if n is not None:
        words += f", {n.removesuffix(' per arm')}"
    return words


def decided_by(description: str, check: Mapping[str, Any] | None, fallback: str = "") -> str:
    """The sentence a verdict opens with, whatever the verdict: 'Decided by <rule>:
    <value> [<low>, <high>], n=<n> per arm, required ≥ <bar>× (lane chat, concurrency 1).'
    A check without numbers (a deterministic rule, a level that could not be estimated)
    is decided by its reason in words (`fallback`: the rule's reason, with no check)."""
    head = f"Decided by {description}"
    values = [check.get(k) for k in ("estimate", "ci_low", "ci_high", "required")] if check else []
    numbers = [float(v) for v in values if isinstance(v, int | float)]
    if check is None or len(numbers) != 4:
        reason = (check or {}).get("reason") or fallback
        return f"{head}: {reason}" if reason else f"{head}."
    est, lo, hi, bar = numbers
    bound = "required ≥" if check.get("kind") == "improve" else "allowed ≤"
    parts = [f"{est:.2f}{X} {interval(lo, hi)}"]
    n = per_arm(check.get("n_baseline"), check.get("n_candidate"))
    if n is not None:
        parts.append(n)
    parts.append(f"{bound} {bar:g}{X}")
    where = [f"lane {check['lane']}"] if check.get("lane") else []
    if check.get("level") is not None:
        where.append(level_label(str(check.get("level_kind") or "concurrency"), float(check["level"])))
    tail = f" ({', '.join(where)})" if where else ""
    return f"{head}: {', '.join(parts)}{tail}."


def too_few_requests_reason(
    metric: str,
    where: str,
    estimate: float,
    n_baseline: int,
    n_candidate: int,
    n: int,
    needed: int,
    confidence: float,
) -> str:
    """A quantile rule on fewer requests than its quantile needs (gate/sample_size.py)."""
    label = METRICS[metric].label
    return (
        f"{label} {estimate:.2f}{X} at {where} rests on {n_baseline} baseline and {n_candidate} candidate "
        f"requests; it needs {needed} requests per arm to be decided at {pct(confidence)} confidence "
        "(with fewer, no pair of order statistics bounds the quantile on both sides), so neither a pass "
        f"nor a fail. Run at least {needed} requests per arm at this level."
    )
