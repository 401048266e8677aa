"""`measurement.history`: optional, validated, in the JSON schema, and diffed as policy."""

from __future__ import annotations

import pytest

from contracts_app.document import (
    canonical_json,
    contract_json_schema,
    diff_documents,
    document_digest,
    requires_benchmark,
    validate_document,
)
from tests.support.documents import base, error_at
from tests.support.rules import assert_rule

HISTORY = {"versions": 3, "metric": "tpot_p50", "max_regression": 0.1}


def with_history(**history: object) -> dict:
    doc = base()
    doc["measurement"]["history"] = {**HISTORY, **history}
    return doc


def test_a_history_rule_is_accepted_and_read_back() -> None:
    doc = validate_document(with_history())
    assert doc.measurement.history is not None
    assert (doc.measurement.history.versions, doc.measurement.history.metric) == (3, "tpot_p50")
    assert doc.measurement.history.confidence == 0.95


def test_a_history_rule_names_a_known_metric() -> None:
    assert_rule(
        with_history(metric="tpot_p42"), with_history(), "measurement.history.metric", "unknown metric"
    )


@pytest.mark.parametrize(("field", "value"), [("versions", 0), ("versions", 21), ("max_regression", 1.5)])
def test_a_history_rule_is_bounded(field: str, value: object) -> None:
    assert error_at(with_history(**{field: value}), f"measurement.history.{field}")


def test_no_history_keeps_the_digest_a_document_had() -> None:
    # The field's default is absent, not null: what is digested has no `history` key.
    assert b'"history"' not in canonical_json(validate_document(base()))
    assert document_digest(validate_document(base())) != document_digest(validate_document(with_history()))


def test_adding_history_is_a_policy_change() -> None:
    changes = diff_documents(base(), with_history())
    assert [(c.path, c.impact) for c in changes] == [("measurement.history", "policy")]
    tightened = diff_documents(with_history(), with_history(max_regression=0.05))
    assert [(c.path, c.impact, c.old, c.new) for c in tightened] == [
        ("measurement.history.max_regression", "policy", 0.1, 0.05)
    ]
    assert requires_benchmark(changes) == requires_benchmark(
        diff_documents(base(), _non_inferiority_changed())
    )


def _non_inferiority_changed() -> dict:
    doc = base()
    doc["measurement"]["non_inferiority"] = [{"metric": "ttft_p95", "max_ratio": 1.2}]
    return doc


def test_the_json_schema_describes_history() -> None:
    schema = contract_json_schema()
    history = schema["$defs"]["History"]
    assert set(history["required"]) == {"versions", "metric", "max_regression"}
    assert history["properties"]["versions"]["minimum"] == 1
    assert history["properties"]["versions"]["maximum"] == 20
    assert "history" in schema["$defs"]["Measurement"]["properties"]
    assert "history" not in schema["$defs"]["Measurement"].get("required", [])
