"""The `expects` grammar: `active` or `release:<id>`, parsed and printed in one place."""

from __future__ import annotations

import pytest

from live_app.expects import Expects


@pytest.mark.parametrize("text", ["active", "release:7", "release:123456789012345678"])
def test_it_prints_what_it_parsed(text: str) -> None:
    parsed = Expects.parse(text)
    assert parsed is not None and str(parsed) == text


def test_a_release_names_its_id_and_active_none() -> None:
    assert Expects.parse("release:7") == Expects.of_release(7) and Expects.of_release(7).release_id == 7
    assert Expects.parse("active") == Expects() and Expects().is_active


REFUSED = ["latest", "release:", "release:0", "release:07", "Release:7", "active ", 7, None]


@pytest.mark.parametrize("text", REFUSED)
def test_it_refuses_anything_else(text: object) -> None:
    assert Expects.parse(text) is None
