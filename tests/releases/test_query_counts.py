"""List endpoints and pages cost the same number of queries for 1 or many rows (no N+1)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from contracts_app.models import Route
from releases_app.services import release_cancel, release_create
from tests.support.actors import Caller
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db


def _queries(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def _more_releases(route: Route, proposer: Any, n: int) -> None:
    for i in range(n):
        release = release_create(
            route=route, candidate_version=cosmetic_change(route, f"w{i}").number, actor=proposer
        )
        release_cancel(release=release, actor=proposer, reason="only for counting")


@pytest.mark.parametrize("url", ["/api/v1/releases/", "/releases/", "/api/v1/audit/", "/audit/"])
def test_list_queries_do_not_grow_with_rows(url: str, route_v1: Route, proposer: Any, viewer: Any) -> None:
    client = Caller("v", user=viewer).client()
    few = _queries(client, url)
    _more_releases(route_v1, proposer, 4)
    assert _queries(client, url) == few
