"""The gate's decision as a pipeline reads it: the verdict and the one rule that decided it,
from the release detail API's `gate_result` (`GateResult.as_dict()`: rules, then checks).

For fail and marginal the deciding rule is the one the release page shows (the first rule
with the overall verdict, its first check with that verdict); a pass has no failing rule,
so it is decided by the check whose confidence bound came closest to its bar."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

TIMES = "\u00d7"
RATIO_KINDS = ("improve", "non_inferiority")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _margin(check: Mapping[str, Any]) -> float:
    """How far the bound the verdict used clears the bar (log scale, so improve and
    non-inferiority compare); infinite for a check without the numbers."""
    low, high, bar = (_number(check.get(k)) for k in ("ci_low", "ci_high", "required"))
    if check.get("kind") == "improve" and low and bar and low > 0 and bar > 0:
        return math.log(low / bar)
    if check.get("kind") == "non_inferiority" and high and bar and high > 0 and bar > 0:
        return math.log(bar / high)
    return math.inf


def _deciding(gate: Mapping[str, Any], verdict: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    rules = [r for r in gate.get("rules") or [] if isinstance(r, dict)]
    checks = [c for c in gate.get("checks") or [] if isinstance(c, dict)]
    if verdict == "pass":
        measured = [c for c in checks if math.isfinite(_margin(c))]
        check = min(measured, key=_margin) if measured else None
        rule_id = check.get("rule_id") if check else None
        rule = next((r for r in rules if r.get("rule_id") == rule_id), rules[0] if rules else None)
        return rule, check
    rule = next((r for r in rules if r.get("verdict") == verdict), None)
    if rule is None:
        return None, None
    check = next(
        (c for c in checks if c.get("rule_id") == rule.get("rule_id") and c.get("verdict") == verdict), None
    )
    return rule, check


def decision(release: Mapping[str, Any]) -> dict[str, Any] | None:
    """{"verdict", "deciding_rule": {rule, kind, metric, lane, level_kind, level, value,
    interval, required, confidence, n, reason}}; None while the gate has not spoken (or a
    release that needs no gate)."""
    verdict = release.get("gate_verdict")
    if not verdict:
        return None
    gate = release.get("gate_result")
    gate = gate if isinstance(gate, Mapping) else {}
    rule, check = _deciding(gate, str(verdict))
    if rule is None and check is None:
        return {"verdict": verdict, "deciding_rule": None}
    check = check or {}
    rule = rule or {}
    low, high = _number(check.get("ci_low")), _number(check.get("ci_high"))
    n_values = [n for n in (check.get("n_baseline"), check.get("n_candidate")) if isinstance(n, int)]
    return {
        "verdict": verdict,
        "deciding_rule": {
            "rule": check.get("rule_id") or rule.get("rule_id"),
            "kind": check.get("kind") or rule.get("kind"),
            "metric": check.get("metric"),
            "lane": check.get("lane"),
            "level_kind": check.get("level_kind"),
            "level": check.get("level"),
            "value": _number(check.get("estimate")),
            "interval": [low, high] if low is not None and high is not None else None,
            "required": _number(check.get("required")),
            "confidence": _number(check.get("confidence")),
            "n": min(n_values) if n_values else None,
            "reason": check.get("reason") or rule.get("reason") or "",
        },
    }


def decision_line(found: Mapping[str, Any] | None) -> str | None:
    """The same decision in one line of text: "decided by improve[0] (tpot_p50, lane chat,
    concurrency 1): 1.58× [0.46, 3.23], required ≥ 1.3×, n 29 per arm"."""
    rule = (found or {}).get("deciding_rule")
    if not rule:
        return None
    where = ", ".join(
        str(part)
        for part in (
            rule.get("metric"),
            f"lane {rule['lane']}" if rule.get("lane") else None,
            f"{rule['level_kind']} {rule['level']:g}"
            if rule.get("level_kind") and _number(rule.get("level")) is not None
            else None,
        )
        if part
    )
    line = f"  decided by {rule.get('rule')}" + (f" ({where})" if where else "")
    unit = TIMES if rule.get("kind") in RATIO_KINDS else ""
    numbers = []
    if rule.get("value") is not None:
        interval = rule.get("interval")
        numbers.append(
            f"{rule['value']:.2f}{unit}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")
        )
    if rule.get("required") is not None:
        side = "≤" if rule.get("kind") == "non_inferiority" else "≥"
        numbers.append(f"required {side} {rule['required']:g}{unit}")
    if rule.get("n") is not None:
        numbers.append(f"n {rule['n']} per arm")
    return line + (": " + ", ".join(numbers) if numbers else "")
