"""User-supplied redaction patterns run in linear time (RE2): a pattern that makes Python's
backtracking `re` run for ever finishes and redacts, and one RE2 can't run (a
backreference, lookaround) is a 400 naming `redact_pattern`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.workloads.conftest import client_for, upload
from workloads_app.formats import import_upload
from workloads_app.formats.redaction import redact_records, redaction
from workloads_app.models import WorkloadContent

CATASTROPHIC = "(a+)+$"  # nested quantifiers: 2^n backtracking paths in `re` when `$` fails
NO_MATCH = "a" * 29 + "!"  # thirty characters: `re` tries every split of the a's before giving up
MATCH = "note: " + "a" * 24


@pytest.mark.timeout(20)
def test_a_catastrophic_pattern_finishes_and_redacts_correctly() -> None:
    lines = [{"prompt": NO_MATCH}, {"prompt": MATCH}]
    records = import_upload("\n".join(json.dumps(x) for x in lines).encode(), "specpact").records
    out, counts = redact_records(records, redaction([CATASTROPHIC]))
    assert [r.prompt for r in out] == [NO_MATCH, "note: [REDACTED]"]
    assert counts["pattern"] == 1


@pytest.mark.django_db
@pytest.mark.timeout(20)
def test_an_upload_with_a_catastrophic_pattern_is_stored_redacted(operator: Any) -> None:
    raw = "".join(json.dumps({"prompt": p}) + "\n" for p in (NO_MATCH, MATCH))
    response = upload(client_for(operator), raw, redact="true", redact_pattern="(a%2B)%2B%24")
    assert response.status_code == 201, response.content
    assert response.json()["redaction"]["pattern"] == 1
    stored = bytes(WorkloadContent.objects.get(version__name=response.json()["name"]).data).decode()
    assert NO_MATCH in stored and "note: [REDACTED]" in stored and MATCH not in stored


@pytest.mark.django_db
@pytest.mark.parametrize(("pattern", "query"), [(r"(a)\1", "(a)%5C1"), ("(?<=a)b", "(%3F%3C%3Da)b")])
def test_a_pattern_re2_refuses_is_a_400_naming_the_field(operator: Any, pattern: str, query: str) -> None:
    response = upload(client_for(operator), redact="true", redact_pattern=query)
    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["path"] == "redact_pattern"
    assert repr(pattern) in error["message"] and "RE2" in error["message"]


def test_re2_classes_are_ascii_and_unicode_properties_cover_other_scripts() -> None:
    """Documented in the redaction module: `\\w` is ASCII under RE2, `\\pL` any letter."""
    [record] = import_upload(json.dumps({"prompt": "Zoë Chen"}).encode(), "specpact").records
    ascii_only, _ = redact_records([record], redaction([r"\w+"]))
    letters, _ = redact_records([record], redaction([r"\pL+"]))
    assert ascii_only[0].prompt == "[REDACTED]ë [REDACTED]"
    assert letters[0].prompt == "[REDACTED] [REDACTED]"
