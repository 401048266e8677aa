"""The gate computes exactly the metrics a contract may name, in the same direction."""

from __future__ import annotations

from benchmarks_app.gate.metrics import METRICS


def test_the_gate_knows_every_contract_metric_and_no_other():
    from contracts_app.document import metrics as contract

    assert set(METRICS) == set(contract.METRICS)
    for name, metric in METRICS.items():
        assert metric.lower_is_better == contract.lower_is_better(name), name
