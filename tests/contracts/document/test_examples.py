"""The five shared example contracts are the format: they must validate as they are."""

from __future__ import annotations

import pytest

from contracts_app.document import normalize, parse_document, validate_document, validation_warnings
from tests.support.documents import EXAMPLES_DIR, example_paths


def test_the_examples_folder_is_found_beside_the_repository() -> None:
    assert EXAMPLES_DIR.is_dir(), EXAMPLES_DIR
    assert len(example_paths()) == 5


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.name)
def test_each_example_validates_unchanged(path) -> None:
    data = parse_document(path.read_bytes(), "yaml")
    doc = validate_document(data)
    # Normalizing keeps exactly what the author wrote: no injected defaults, nothing lost.
    assert normalize(doc) == data
    assert all(w.path and w.message for w in validation_warnings(doc))


def test_the_examples_cover_every_engine_family_they_claim() -> None:
    engines = {
        validate_document(parse_document(p.read_bytes(), "yaml")).target.engine for p in example_paths()
    }
    assert engines == {"vllm", "tgi", "transformers"}
