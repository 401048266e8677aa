"""Real gate results (benchmarks_app.gate on synthetic harness output, tests/support/charts.py)
for tests about how a verdict is told: pass, marginal and fail on demand, in milliseconds."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from benchmarks_app.gate import GateRules, evaluate_gate, gate_input_from_harness
from tests.support.charts import harness

# Requests per level: one in thirty fails in the synthetic results (0, 30, 60), so 61 are
# measured, more than the 59 a p95 rule needs to be decided at 95% (gate/sample_size.py).
REQUESTS = 64
MEASURED = 61


@cache
def _data(speedup: float) -> Any:
    rng = np.random.default_rng(3)
    base = harness(rng, speedup=1.0, levels=(1, 4), n=REQUESTS)
    cand = harness(rng, speedup=speedup, levels=(1, 4), n=REQUESTS, spec=True)
    return gate_input_from_harness(baseline={"chat": base}, candidate={"chat": cand})


def gate_result(verdict: str) -> dict[str, Any]:
    """A stored gate result (`GateResult.as_dict()`) with `verdict`: tpot_p50 must improve
    (1.5x measured; the bar set for the verdict wanted), TTFT p95 within 3x."""
    data = _data(1.5)
    if verdict == "marginal":
        probe = evaluate_gate(
            data, GateRules.from_measurement({"improve": [{"metric": "tpot_p50", "min_ratio": 1.0}]})
        )
        bar = round(min(c.estimate for c in probe.checks if c.estimate) * 0.97, 3)
    else:
        bar = {"pass": 1.05, "fail": 3.0}[verdict]
    rules = {
        "improve": [{"metric": "tpot_p50", "min_ratio": bar, "confidence": 0.95}],
        "non_inferiority": [{"metric": "ttft_p95", "max_ratio": 3.0}],
    }
    result = evaluate_gate(data, GateRules.from_measurement(rules), seed=0).as_dict()
    assert result["verdict"] == verdict, result["summary"]
    return result
