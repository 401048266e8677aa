"""Assertions about API answers that many test folders make."""

from __future__ import annotations

from typing import Any


def assert_filter_refused(response: Any, param: str) -> None:
    """A bad query parameter on a list endpoint: a problem+json 400 naming it, alone."""
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert {e["path"] for e in response.json()["errors"]} == {param}
