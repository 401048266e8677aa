"""Release lists read the columns they show: not the gate result, the diff or the versions'
documents (decoding those JSON columns was most of a list's CPU at issue 16's scale)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from contracts_app.models import Route
from releases_app.services import release_create
from tests.support.actors import Caller
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db

UNSHOWN = (
    '"releases_app_release"."gate_result"',
    '"releases_app_release"."diff"',
    '"contracts_app_contractversion"."document"',
)


@pytest.mark.parametrize("url", ["/api/v1/releases/", "/releases/"])
def test_release_lists_read_no_gate_result_diff_or_document(
    url: str, route_v1: Route, proposer: Any, viewer: Any
) -> None:
    release = release_create(
        route=route_v1, candidate_version=cosmetic_change(route_v1, "w").number, actor=proposer
    )
    client = Caller("v", user=viewer).client()
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200 and str(release.pk) in response.content.decode()
    assert [q["sql"] for q in captured.captured_queries if any(col in q["sql"] for col in UNSHOWN)] == []
    # The detail still carries them.
    detail = client.get(f"/api/v1/releases/{release.pk}/").json()
    assert "gate_result" in detail and detail["diff"]
