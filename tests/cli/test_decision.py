"""The CLI's `decision` from a release as the API returns it: none before a verdict, and a
deciding rule without numbers where the gate measured none (gate results from the real gate
on synthetic arms)."""

from __future__ import annotations

import numpy as np

from benchmarks_app.gate import GateInput, evaluate_gate
from specpact.cli.decision import decision, decision_line
from tests.benchmarks.gate.synthetic import arm, rules


def test_no_decision_before_the_gate_has_spoken_or_when_no_gate_was_needed() -> None:
    assert decision({"state": "benchmarking", "gate_verdict": None, "gate_result": None}) is None
    assert decision({"state": "awaiting_review", "gate_verdict": "", "gate_result": {}}) is None


def test_a_gate_result_that_names_no_rule_has_a_verdict_but_no_deciding_rule() -> None:
    found = decision({"gate_verdict": "pass", "gate_result": {"verdict": "pass"}})
    assert found == {"verdict": "pass", "deciding_rule": None}
    assert decision_line(found) is None


def test_an_unmeasured_deterministic_rule_decides_in_words_without_numbers() -> None:
    rng = np.random.default_rng(1)
    data = GateInput([arm(rng, scale=1.0)], [arm(rng, scale=1 / 1.5)])
    gate_rules = rules(
        improve=[{"metric": "tpot_p50", "min_ratio": 1.2}],
        output_stability={"greedy_exact_match_min": 0.99},
    )
    gate = evaluate_gate(data, gate_rules).as_dict()
    assert gate["verdict"] == "marginal"
    found = decision({"gate_verdict": "marginal", "gate_result": gate})
    assert found is not None
    rule = found["deciding_rule"]
    assert rule["rule"] == "output_stability" and rule["value"] is None and rule["interval"] is None
    assert "not measured" in rule["reason"]
    line = decision_line({"deciding_rule": rule})
    assert line is not None and line.startswith("  decided by output_stability") and "×" not in line
