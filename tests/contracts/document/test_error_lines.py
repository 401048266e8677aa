"""Field errors placed under the lines of the author's text (contracts_app/document/lines.py)."""

from __future__ import annotations

import pytest

from contracts_app.document import ContractError, parse_document, validate_document
from contracts_app.document.errors import FieldError
from contracts_app.document.lines import error_listing, path_parts

TEXT = """\
apiVersion: specpact/v1
route: r1
speculation:
  method: ngram
  num_speculative_tokens: 5
measurement:
  improve:
    - {metric: tpot_p50, min_ratio: 1.2}
    - metric: ttft_p95
      min_ratio: 0.5
"""


def _lines_of(listing: object) -> dict[int, list[str]]:
    return {line.number: [e.path for e in line.errors] for line in listing.lines if line.errors}  # type: ignore[attr-defined]


def test_path_parts_reads_keys_and_indices() -> None:
    assert path_parts("measurement.improve[1].min_ratio") == ["measurement", "improve", 1, "min_ratio"]
    assert path_parts("") == []


def test_an_error_sits_under_its_keys_line() -> None:
    listing = error_listing(
        TEXT,
        [
            FieldError("speculation.num_speculative_tokens", "too many"),
            FieldError("measurement.improve[1].min_ratio", "below 1"),
            FieldError("measurement.improve[0]", "flow item"),
        ],
    )
    assert _lines_of(listing) == {
        5: ["speculation.num_speculative_tokens"],
        8: ["measurement.improve[0]"],
        10: ["measurement.improve[1].min_ratio"],
    }
    assert listing.document_errors == ()
    assert [line.number for line in listing.lines] == list(range(1, 11))


def test_a_missing_field_points_at_its_nearest_ancestor() -> None:
    listing = error_listing(TEXT, [FieldError("speculation.params.prompt_lookup_min", "needed")])
    assert _lines_of(listing) == {3: ["speculation.params.prompt_lookup_min"]}


def test_a_missing_top_level_field_is_the_documents() -> None:
    listing = error_listing(TEXT, [FieldError("target", "Field required")])
    assert [e.path for e in listing.document_errors] == ["target"]
    assert _lines_of(listing) == {}


def test_a_syntax_error_sits_on_the_line_the_parser_names() -> None:
    broken = TEXT.replace("  method: ngram", "  method: [ngram")
    with pytest.raises(ContractError) as caught:
        parse_document(broken, "yaml")
    listing = error_listing(broken, caught.value.errors)
    [line] = [line for line in listing.lines if line.errors]
    assert line.number in (4, 5)  # PyYAML names where the flow sequence failed to close
    assert "invalid YAML at line" in line.errors[0].message


def test_a_duplicate_key_sits_on_its_second_spelling() -> None:
    doubled = TEXT + "route: r2\n"
    with pytest.raises(ContractError) as caught:
        parse_document(doubled, "yaml")
    listing = error_listing(doubled, caught.value.errors)
    assert _lines_of(listing) == {11: [""]}
    assert "duplicate key 'route'" in listing.lines[10].errors[0].message


def test_real_validation_errors_land_on_their_lines() -> None:
    import yaml

    from tests.support.factories import example

    text = yaml.safe_dump(example(), sort_keys=False).replace(
        "num_speculative_tokens: 5", "num_speculative_tokens: -1"
    )
    with pytest.raises(ContractError) as caught:
        validate_document(parse_document(text, "yaml"))
    listing = error_listing(text, caught.value.errors)
    placed = {n: paths for n, paths in _lines_of(listing).items()}
    wanted = next(
        i for i, row in enumerate(text.splitlines(), start=1) if "num_speculative_tokens: -1" in row
    )
    assert "speculation.num_speculative_tokens" in placed[wanted]


def test_text_that_cannot_be_composed_keeps_every_error_for_the_document() -> None:
    listing = error_listing("a: [1,\n", [FieldError("a", "bad")])
    assert [e.path for e in listing.document_errors] == ["a"]
