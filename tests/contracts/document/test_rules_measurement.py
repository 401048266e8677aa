"""Rules of decoding, lanes, workloads, standards and rollback, and how violations are
reported: one per test, a document that breaks the rule is refused with a message at the
right path, and the nearest document that keeps it is accepted."""

from __future__ import annotations

import pytest

from tests.support.documents import base, error_at, errors_of
from tests.support.rules import assert_rule, assert_valid


def test_a_temperature_needs_sampling() -> None:
    bad, good = base(), base()
    bad["compatibility"]["decoding"]["modes"] = ["greedy"]
    good["compatibility"]["decoding"]["modes"] = ["greedy"]
    del good["compatibility"]["decoding"]["temperature_max"]
    assert_rule(bad, good, "compatibility.decoding.temperature_max", "sampling")


def test_a_decoding_mode_is_listed_once() -> None:
    bad = base()
    bad["compatibility"]["decoding"]["modes"] = ["greedy", "sampling", "greedy"]
    assert_rule(bad, base(), "compatibility.decoding.modes[2]", "listed twice")


def test_a_lane_cannot_be_both_allowed_and_excluded() -> None:
    bad, good = base(), base()
    bad["lanes"]["excluded"] = ["agent", "extraction"]
    good["lanes"]["excluded"] = ["agent", "chat"]
    assert_rule(bad, good, "lanes.excluded[1]", "both allowed and excluded")


def test_a_lane_is_listed_once() -> None:
    bad = base()
    bad["lanes"]["allowed"] = ["summarization", "extraction", "summarization"]
    assert_rule(bad, base(), "lanes.allowed[2]", "listed twice")


def test_custom_lane_names_are_allowed() -> None:
    doc = base()
    doc["lanes"]["allowed"].append("code-review")
    doc["measurement"]["workloads"]["code-review"] = {
        "dataset": "file:cr.jsonl",
        "rate": [0.5, 2.0],
        "requests_per_level": 16,
        "max_tokens": 64,
    }
    assert_valid(doc)


def test_a_workload_on_an_excluded_lane_is_refused() -> None:
    bad, good = base(), base()
    bad["measurement"]["workloads"]["agent"] = dict(bad["measurement"]["workloads"]["extraction"])
    good["lanes"]["excluded"] = []
    good["lanes"]["allowed"].append("agent")
    good["measurement"]["workloads"]["agent"] = dict(good["measurement"]["workloads"]["extraction"])
    assert_rule(bad, good, "measurement.workloads.agent", "lane agent is excluded")


def test_a_workload_on_a_lane_not_allowed_is_refused() -> None:
    bad = base()
    bad["measurement"]["workloads"]["chat"] = dict(bad["measurement"]["workloads"]["extraction"])
    assert_rule(bad, base(), "measurement.workloads.chat", "not an allowed lane")


def test_a_workload_needs_levels_or_rates() -> None:
    bad, good = base(), base()
    del bad["measurement"]["workloads"]["extraction"]["concurrency"]
    del good["measurement"]["workloads"]["extraction"]["concurrency"]
    good["measurement"]["workloads"]["extraction"]["rate"] = [1.0, 4.0]
    assert_rule(bad, good, "measurement.workloads.extraction", "concurrency levels or request rates")


def test_a_load_level_is_listed_once() -> None:
    bad = base()
    bad["measurement"]["workloads"]["extraction"]["concurrency"] = [1, 4, 1]
    assert_rule(bad, base(), "measurement.workloads.extraction.concurrency[2]", "listed twice")


@pytest.mark.parametrize("section", ["improve", "non_inferiority"])
def test_a_standard_names_a_known_metric(section: str) -> None:
    bad = base()
    bad["measurement"][section][0]["metric"] = "itl_p50"  # per-chunk ITL is itl_chunk_*
    assert_rule(bad, base(), f"measurement.{section}[0].metric", "unknown metric itl_p50")


def test_a_metric_has_one_standard_per_section() -> None:
    bad = base()
    bad["measurement"]["non_inferiority"][1]["metric"] = "ttft_p95"
    assert_rule(bad, base(), "measurement.non_inferiority[1].metric", "two standards")


@pytest.mark.parametrize("target", ["previous", "speculation_off", "version:1", "version:42"])
def test_rollback_targets_of_the_three_forms_are_accepted(target: str) -> None:
    doc = base()
    doc["rollback"]["to"] = target
    assert_valid(doc)


@pytest.mark.parametrize("target", ["version:0", "version:x", "last", "version:", "Previous", "previous\n"])
def test_a_rollback_target_of_another_form_is_refused(target: str) -> None:
    doc = base()
    doc["rollback"]["to"] = target
    assert "previous, speculation_off, or version:N" in error_at(doc, "rollback.to")


def test_a_rollback_trigger_is_listed_once() -> None:
    bad = base()
    bad["rollback"]["when"] = ["gate_fail", "gate_fail"]
    assert_rule(bad, base(), "rollback.when[1]", "listed twice")


def test_every_rule_violation_is_reported_at_once() -> None:
    doc = base()
    doc["route"] = "Bad Route"
    doc["speculation"]["params"] = {"prompt_lookup_min": 9, "prompt_lookup_max": 2}
    doc["lanes"]["excluded"] = ["extraction"]
    doc["rollback"]["to"] = "yesterday"
    paths = {e.path for e in errors_of(doc)}
    assert {
        "route",
        "speculation.params.prompt_lookup_min",
        "lanes.excluded[0]",
        "measurement.workloads.extraction",
        "rollback.to",
    } <= paths


def test_rules_run_only_after_the_schema_passes() -> None:
    doc = base()
    doc["route"] = "Bad Route"  # a rule error
    doc["target"]["engine"] = "triton"  # a schema error
    assert [e.path for e in errors_of(doc)] == ["target.engine"]
