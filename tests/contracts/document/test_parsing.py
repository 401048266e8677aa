"""parse_document refuses what would make a contract ambiguous, each time with a
ContractError whose message says where."""

from __future__ import annotations

import json

import pytest
import yaml

from contracts_app.document import MAX_DOCUMENT_BYTES, ContractError, parse_document, validate_document
from tests.support.documents import EXAMPLES_DIR, base


def parse_error(raw: bytes | str, fmt: str) -> str:
    with pytest.raises(ContractError) as info:
        parse_document(raw, fmt)  # type: ignore[arg-type]
    assert info.value.status == 400 and info.value.code == "invalid_contract"
    assert len(info.value.errors) == 1
    assert info.value.errors[0].path == ""
    return info.value.errors[0].message


def test_it_parses_yaml_and_json_to_the_same_dict() -> None:
    doc = base()
    assert parse_document(yaml.safe_dump(doc), "yaml") == doc
    assert parse_document(json.dumps(doc).encode(), "json") == doc


def test_malformed_yaml_names_the_line_and_column() -> None:
    message = parse_error(b"route: a\ntarget:\n  model: [unclosed\n", "yaml")
    assert "invalid YAML at line" in message and "column" in message


def test_duplicate_yaml_keys_are_refused_with_both_lines() -> None:
    message = parse_error(b"apiVersion: specpact/v1\nroute: a\nroute: b\n", "yaml")
    assert "duplicate key 'route'" in message
    assert "line 3" in message and "first at line 2" in message


def test_nested_duplicate_yaml_keys_are_refused() -> None:
    message = parse_error(b"target:\n  model: a\n  engine: vllm\n  model: b\n", "yaml")
    assert "duplicate key 'model'" in message and "line 4" in message


def test_duplicate_json_keys_are_refused_with_line_and_column() -> None:
    raw = b'{\n  "route": "a",\n  "target": {"model": "x"},\n  "route": "b"\n}'
    message = parse_error(raw, "json")
    assert message == "invalid JSON at line 4, column 3: duplicate key 'route'"


def test_the_same_key_in_two_objects_is_not_a_duplicate() -> None:
    assert parse_document(b'{"a": {"name": 1}, "b": {"name": 2}}', "json") == {
        "a": {"name": 1},
        "b": {"name": 2},
    }


def test_malformed_json_names_the_line_and_column() -> None:
    assert parse_error(b'{\n  "route": "a",\n}', "json").startswith("invalid JSON at line 3, column 1:")


def test_json_nan_is_refused() -> None:
    assert "NaN is not a JSON number" in parse_error(b'{"x": NaN}', "json")


def test_non_utf8_bytes_are_refused_with_the_byte_offset() -> None:
    raw = b"route: caf\xe9\n"
    assert parse_error(raw, "yaml") == "the document is not valid UTF-8: bad byte at byte offset 10"


def test_a_document_over_the_size_limit_is_refused() -> None:
    raw = b"# " + b"x" * MAX_DOCUMENT_BYTES + b"\nroute: a\n"
    message = parse_error(raw, "yaml")
    assert f"the limit is {MAX_DOCUMENT_BYTES} bytes" in message
    assert MAX_DOCUMENT_BYTES == 256 * 1024


def test_the_size_limit_counts_utf8_bytes_of_text_too() -> None:
    text = "# " + "é" * (MAX_DOCUMENT_BYTES // 2) + "\n"
    assert "the limit is" in parse_error(text, "yaml")


@pytest.mark.parametrize(
    ("raw", "fmt", "kind"),
    [
        (b"- a\n- b\n", "yaml", "a list"),
        (b"42", "json", "a int"),
        (b'"text"', "json", "a str"),
        (b"[1]", "json", "a list"),
    ],
)
def test_a_top_level_that_is_not_a_mapping_is_refused(raw: bytes, fmt: str, kind: str) -> None:
    assert parse_error(raw, fmt).endswith(f"must be a mapping of fields, not {kind}")


def test_an_empty_document_is_refused() -> None:
    assert parse_error(b"  \n# only a comment\n", "yaml") == "the document is empty"
    assert parse_error(b"", "json") == "the document is empty"


def test_yaml_aliases_are_refused() -> None:
    raw = b"a: &x [1, 2]\nb: *x\n"
    message = parse_error(raw, "yaml")
    assert "aliases (*x) are not allowed" in message and "line 2" in message


def test_python_tags_are_refused_by_the_safe_loader() -> None:
    assert "invalid YAML" in parse_error(b"route: !!python/object/apply:os.system ['true']\n", "yaml")


def test_yaml_dates_stay_strings() -> None:
    assert parse_document(b"description: 2025-01-31\n", "yaml") == {"description": "2025-01-31"}


def test_a_utf8_byte_order_mark_is_accepted() -> None:
    assert parse_document(b'\xef\xbb\xbf{"route": "a"}', "json") == {"route": "a"}


def test_an_unknown_format_is_refused() -> None:
    assert "unknown format" in parse_error(b"a: 1", "toml")


def test_a_parsed_example_has_comments_dropped() -> None:
    raw = (EXAMPLES_DIR / "contract-summaries-ngram.yaml").read_bytes()
    assert raw.startswith(b"#")
    assert validate_document(parse_document(raw, "yaml")).route == "contract-summaries"


@pytest.mark.parametrize(
    ("raw", "fmt"), [(b"[" * 100_000 + b"]" * 100_000, "json"), (b"a: " + b"[" * 100_000, "yaml")]
)
def test_deep_nesting_is_an_error_not_a_crash(raw: bytes, fmt: str) -> None:
    assert "nested too deeply" in parse_error(raw, fmt)


def test_a_contract_error_keeps_its_field_errors_when_pickled() -> None:
    import pickle

    with pytest.raises(ContractError) as info:
        parse_document(b"- a\n", "yaml")
    again = pickle.loads(pickle.dumps(info.value))  # noqa: S301 - our own object
    assert again.errors == info.value.errors and again.code == "invalid_contract" and again.status == 400


def test_only_true_and_false_are_yaml_booleans() -> None:
    data = parse_document(b"a: [yes, no, on, off, true, False]\n", "yaml")
    assert data == {"a": ["yes", "no", "on", "off", True, False]}
