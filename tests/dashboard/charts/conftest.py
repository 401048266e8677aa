"""A run of synthetic harness results (tests/support/charts.py), aggregated the way a run
stores them, and its gate result."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.gate import GateRules, evaluate_gate, gate_input_from_harness
from tests.support.charts import harness


@pytest.fixture(scope="session")
def run():
    rng = np.random.default_rng(5)
    base, cand = harness(rng, speedup=1.0), harness(rng, speedup=2.0, spec=True)
    gate = evaluate_gate(
        gate_input_from_harness(baseline={"chat": base}, candidate={"chat": cand}),
        GateRules.from_measurement(
            {
                "improve": [
                    {"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95, "max_concurrency": 4}
                ],
                "non_inferiority": [{"metric": "ttft_p95", "max_ratio": 1.1}],
                "output_stability": {"greedy_exact_match_min": 0.99},
                "memory_headroom_min_gib": 4,
            }
        ),
        seed=0,
    )
    return {"baseline": aggregate_result(base), "candidate": aggregate_result(cand), "gate": gate.as_dict()}
