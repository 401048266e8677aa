"""Schema errors: unknown fields are rejected (not ignored), wrong types are rejected, and
every error comes back at once with a path an author can find."""

from __future__ import annotations

from contracts_app.document import validate_document
from tests.support.documents import base, error_at, errors_of, paths_of


def test_a_valid_document_passes() -> None:
    assert validate_document(base()).route == "contract-summaries"


def test_an_unknown_api_version_is_the_only_error_reported() -> None:
    doc = base()
    doc["apiVersion"] = "specpact/v2"
    doc["target"]["engine"] = "nonsense"  # would be a v1 schema error: not reported for v2
    errors = errors_of(doc)
    assert [(e.path, e.message) for e in errors] == [
        ("apiVersion", "unknown apiVersion 'specpact/v2'; this server reads specpact/v1")
    ]


def test_a_missing_api_version_is_a_missing_field() -> None:
    doc = base()
    del doc["apiVersion"]
    assert error_at(doc, "apiVersion") == "required field is missing"


def test_unknown_fields_are_rejected_at_every_level() -> None:
    doc = base()
    doc["owner"] = "me"
    doc["speculation"]["params"]["prompt_lookup_maxx"] = 4
    doc["measurement"]["workloads"]["extraction"]["temperature"] = 0.2
    paths = paths_of(doc)
    assert {
        "owner",
        "speculation.params.prompt_lookup_maxx",
        "measurement.workloads.extraction.temperature",
    } <= set(paths)
    assert error_at(doc, "owner").startswith("unknown field")


def test_wrong_types_are_rejected_with_item_paths() -> None:
    doc = base()
    doc["measurement"]["improve"][0]["min_ratio"] = "fast"
    doc["assets"] = [{"role": "helper", "name": "x"}]
    doc["compatibility"]["max_concurrency"] = "64"  # strict: a quoted number is not a number
    assert "valid number" in error_at(doc, "measurement.improve[0].min_ratio")
    assert "'draft'" in error_at(doc, "assets[0].role")
    assert "valid integer" in error_at(doc, "compatibility.max_concurrency")


def test_a_boolean_is_not_a_number() -> None:
    doc = base()
    doc["speculation"]["num_speculative_tokens"] = True
    assert "valid integer" in error_at(doc, "speculation.num_speculative_tokens")


def test_every_schema_error_is_reported_at_once() -> None:
    doc = base()
    del doc["rollback"]
    doc["target"]["engine"] = "triton"
    doc["compatibility"]["decoding"]["modes"] = ["greedy", "beam"]
    doc["measurement"]["workloads"]["summarization"]["concurrency"] = [0]
    paths = set(paths_of(doc))
    assert {
        "rollback",
        "target.engine",
        "compatibility.decoding.modes[1]",
        "measurement.workloads.summarization.concurrency[0]",
    } <= paths


def test_a_bad_lane_name_is_named_in_plain_words() -> None:
    doc = base()
    doc["lanes"]["allowed"] = ["Chat Lane"]
    assert error_at(doc, "lanes.allowed[0]").startswith("a lane name is a lowercase slug")


def test_a_bad_workload_key_points_at_the_key() -> None:
    doc = base()
    doc["measurement"]["workloads"]["Bad Lane"] = doc["measurement"]["workloads"].pop("extraction")
    assert "lowercase slug" in error_at(doc, "measurement.workloads.Bad Lane")


def test_a_bad_digest_is_explained() -> None:
    doc = base()
    doc["target"]["digest"] = "md5:abc"
    assert "sha256:" in error_at(doc, "target.digest")


def test_a_section_that_is_not_a_mapping_is_reported() -> None:
    doc = base()
    doc["target"] = ["vllm"]
    assert "mapping" in error_at(doc, "target")


def test_infinity_is_not_a_ratio() -> None:
    doc = base()
    doc["measurement"]["non_inferiority"][0]["max_ratio"] = float("inf")
    assert error_at(doc, "measurement.non_inferiority[0].max_ratio")


def test_the_top_level_must_be_a_mapping() -> None:
    assert paths_of(["not", "a", "mapping"]) == [""]
