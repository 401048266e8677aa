"""Reading the gate's rules from a contract's `measurement` section."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchmarks_app.gate import GateInputError, GateRules

EXAMPLES = sorted(Path(__file__).resolve().parents[4].glob("shared/contracts/examples/*.yaml"))


@pytest.mark.skipif(not EXAMPLES, reason="the shared contract examples are not beside the checkout")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_contracts_measurement_reads(path):
    measurement = yaml.safe_load(path.read_text())["measurement"]
    gate_rules = GateRules.from_measurement(measurement)
    assert gate_rules.improve and gate_rules.primary_metric == measurement["improve"][0]["metric"]
    assert len(gate_rules.non_inferiority) == len(measurement.get("non_inferiority", []))
    assert set(gate_rules.planned or {}) == set(measurement["workloads"])


def test_a_rule_reads_with_its_scope_and_describes_itself():
    gate_rules = GateRules.from_measurement(
        {
            "workloads": {"chat": {"concurrency": [1, 4, 16]}},
            "improve": [{"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95, "max_concurrency": 4}],
            "non_inferiority": [{"metric": "ttft_p95", "max_ratio": 1.10}],
            "output_stability": {"greedy_exact_match_min": 0.99},
            "memory_headroom_min_gib": 4,
        }
    )
    rule = gate_rules.improve[0]
    assert (rule.rule_id, rule.bound, rule.confidence, rule.max_concurrency) == ("improve[0]", 1.2, 0.95, 4)
    assert rule.applies_to("concurrency", 4) and not rule.applies_to("concurrency", 16)
    assert not rule.applies_to("rate", 1.0)  # a concurrency bound says nothing about a rate
    assert rule.describe() == "TPOT p50 ≥ 1.2× better at concurrency ≤ 4, 95% confidence"
    assert (
        gate_rules.non_inferiority[0].describe()
        == "TTFT p95 ≤ 1.1× of baseline at every level, 95% confidence"
    )
    assert gate_rules.planned == {"chat": (("concurrency", 1.0), ("concurrency", 4.0), ("concurrency", 16.0))}
    assert (gate_rules.greedy_exact_match_min, gate_rules.memory_headroom_min_gib) == (0.99, 4.0)


@pytest.mark.parametrize(
    ("measurement", "message"),
    [
        (
            {"improve": [{"metric": "tpot_p42", "min_ratio": 1.2}]},
            r"improve\[0\]\.metric: unknown metric 'tpot_p42'",
        ),
        ({"improve": [{"metric": "tpot_p50"}]}, r"improve\[0\]\.min_ratio must be a positive number"),
        ({"non_inferiority": [{"metric": "ttft_p95", "max_ratio": "1.1"}]}, r"max_ratio must be a number"),
        ({"improve": [{"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 95}]}, r"confidence must be in"),
        ({"output_stability": {"greedy_exact_match_min": 99}}, r"greedy_exact_match_min must be in \[0, 1\]"),
        ({"improve": {"metric": "tpot_p50"}}, r"measurement\.improve must be a list"),
        (
            {"workloads": {"chat": {"concurrency": [0]}}},
            r"workloads\.chat\.concurrency must hold positive numbers",
        ),
    ],
)
def test_nonsense_is_refused_with_the_path(measurement, message):
    with pytest.raises(GateInputError, match=message):
        GateRules.from_measurement(measurement)


def test_a_non_inferiority_confidence_the_contract_states_reaches_the_gate():
    from contracts_app.document import ContractError, document_digest, normalize, validate_document
    from tests.support.documents import load_example

    data = load_example("contract-summaries-ngram.yaml")
    before = document_digest(validate_document(data))
    assert data["measurement"]["non_inferiority"], "the example has a non-inferiority rule"
    data["measurement"]["non_inferiority"][0]["confidence"] = 0.9
    doc = validate_document(data)
    # Absent stays absent: stored documents keep their digests; stated, it is part of the contract.
    assert document_digest(doc) != before
    measurement = normalize(doc)["measurement"]
    assert GateRules.from_measurement(measurement).non_inferiority[0].confidence == 0.9
    data["measurement"]["non_inferiority"][0]["confidence"] = 1.5
    with pytest.raises(ContractError) as refused:
        validate_document(data)
    assert any(e.path == "measurement.non_inferiority[0].confidence" for e in refused.value.errors)
