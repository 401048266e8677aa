"""The audit page counts the whole trail off its newest id (ids have no gaps), and a
filtered or route-scoped view by counting what matches."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from audit_app.services import audit_record

pytestmark = pytest.mark.django_db


def _record(n: int, action: str) -> None:
    for i in range(n):
        audit_record(actor=None, action=action, obj_type="thing", obj_id=i)


def test_the_whole_trail_is_counted_by_its_newest_id_and_a_filtered_one_by_count(viewer: Any) -> None:
    _record(130, "test.many")
    _record(5, "test.few")
    client = Client()
    client.force_login(viewer)
    with CaptureQueriesContext(connection) as captured:
        body = client.get("/audit/").content.decode()
    assert "page 1 of 2" in body
    assert not [q for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]
    filtered = client.get("/audit/?action=test.few").content.decode()
    assert "page 1 of" not in filtered  # five events: one page, no page links
    assert filtered.count('id="event-') == 5
    assert "page 2 of 2" in client.get("/audit/?action=test.many&page=2").content.decode()
