"""The verdict at a glance, from a stored gate result (`GateResult.as_dict()`): the verdict,
the rule that decided it in words with its interval drawn beside the bar, what the verdict
means and, for a marginal one, about how many requests per level would settle it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from benchmarks_app.gate.wording import decided_by

TIMES = "\u00d7"

MEANING = {
    "pass": "Every rule is met at the confidence the contract states.",
    "marginal": (
        "Not enough evidence either way: the estimate meets the bar, but its interval still reaches "
        "past it at the confidence the contract states. It is neither a pass nor a fail."
    ),
    "fail": "At least one rule's estimate misses its bar (or a deterministic check failed).",
}


def _margin(check: Mapping[str, Any]) -> float:
    """How far a passing check's bound clears its bar, on the log scale (smaller: closer)."""
    numbers = _numbers(check)
    if numbers is None or min(numbers) <= 0:
        return math.inf
    _, lo, hi, bar = numbers
    return math.log(lo / bar) if check.get("kind") == "improve" else math.log(bar / hi)


def deciding(gate: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(the rule that decided the verdict, its check that did). A fail or a marginal is
    decided by the first rule with that verdict and its first such check. A pass is decided
    by the check that cleared its bar by the least: of the improvement rules (the speedup
    the release claims) when there are any, else of any rule; a rule with no statistical
    check (a deterministic one) decides a pass only when nothing else does."""
    verdict = gate.get("verdict")
    rules = [r for r in gate.get("rules") or [] if r.get("verdict") == verdict]
    checks = [c for c in gate.get("checks") or [] if c.get("verdict") == verdict]
    if not rules:
        return None, None
    if verdict != "pass":
        rule = rules[0]
        check = next((c for c in checks if c.get("rule_id") == rule.get("rule_id")), None)
        return rule, check
    measured = [c for c in checks if _numbers(c) is not None]
    improving = [c for c in measured if c.get("kind") == "improve"]
    candidates = improving or measured
    if not candidates:
        return rules[0], None
    check = min(candidates, key=_margin)
    rule = next((r for r in rules if r.get("rule_id") == check.get("rule_id")), rules[0])
    return rule, check


def _numbers(check: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    """(estimate, interval low, interval high, bar), or None when any is missing."""
    values = [check.get(k) for k in ("estimate", "ci_low", "ci_high", "required")]
    numbers = [float(v) for v in values if isinstance(v, int | float)]
    if len(numbers) != 4:
        return None
    return numbers[0], numbers[1], numbers[2], numbers[3]


def requests_to_settle(check: Mapping[str, Any]) -> int | None:
    """About how many requests per level would make the interval narrow enough to decide,
    by its width: the interval shrinks as 1/sqrt(n), measured on the log of the ratio.
    None when the check carries no interval or the estimate sits on the bar. A check below
    the requests its quantile needs says that number itself."""
    numbers = _numbers(check)
    n = min(check.get("n_baseline") or 0, check.get("n_candidate") or 0)
    needed = check.get("requests_needed")
    if isinstance(needed, int) and n < needed:
        return needed  # below the quantile's floor no interval decides (gate/sample_size.py)
    if not n or numbers is None or min(numbers) <= 0:
        return None
    est, lo, hi, bar = numbers
    if check.get("kind") == "improve":
        half, room = math.log(est) - math.log(lo), math.log(est) - math.log(bar)
    elif check.get("kind") == "non_inferiority":
        half, room = math.log(hi) - math.log(est), math.log(bar) - math.log(est)
    else:
        return None
    if room <= 0 or half <= 0:
        return None
    return max(n + 1, math.ceil(n * (half / room) ** 2))


def interval_picture(check: Mapping[str, Any]) -> dict[str, Any] | None:
    """Positions (0-100) of the interval, the estimate, the bar and 1x on a common scale,
    for the small drawing beside the deciding rule."""
    numbers = _numbers(check)
    if numbers is None:
        return None
    est, lo, hi, bar = numbers
    values = [est, lo, hi, bar, 1.0]
    low, high = min(values), max(values)
    pad = 0.1 * (high - low or 1.0)
    low, high = low - pad, high + pad

    def at(x: float) -> float:
        return round(100 * (x - low) / (high - low), 1)

    return {
        "lo": at(lo),
        "hi": at(hi),
        "width": round(at(hi) - at(lo), 1),
        "est": at(est),
        "bar": at(bar),
        "one": at(1.0),
        "label": (
            f"estimate {est:.2f}{TIMES}, interval [{lo:.2f}, {hi:.2f}], "
            f"{'required ≥' if check.get('kind') == 'improve' else 'allowed ≤'} {bar:g}{TIMES}"
        ),
        "bar_label": f"{bar:g}{TIMES}",
    }


def verdict_at_a_glance(gate: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not gate:
        return None
    rule, check = deciding(gate)
    verdict = str(gate.get("verdict") or "")
    settle = requests_to_settle(check) if check and verdict == "marginal" else None
    n = min(check.get("n_baseline") or 0, check.get("n_candidate") or 0) if check else 0
    return {
        "verdict": verdict,
        "meaning": MEANING.get(verdict, ""),
        "rule": rule,
        "check": check,
        "picture": interval_picture(check) if check else None,
        "settle": settle,
        "n": n,
        "small_samples": list(gate.get("small_samples") or []),
        # The summary's head: its small-sample sentence is shown once, as its own line.
        "headline": str(gate.get("summary") or "").split(" Small samples:")[0],
        # The verdict's first sentence, the same for pass, marginal and fail.
        "decided_by": decided_by(
            str(rule.get("description") or rule.get("rule_id")), check, rule.get("reason") or ""
        )
        if rule
        else None,
    }
