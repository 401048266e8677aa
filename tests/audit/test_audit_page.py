from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client

from audit_app.services import audit_record

pytestmark = pytest.mark.django_db


def _page(user: Any, query: str = "") -> str:
    client = Client()
    client.force_login(user)
    response = client.get(f"/audit/{query}")
    assert response.status_code == 200
    return response.content.decode()


def test_the_audit_page_shows_events_filters_and_a_valid_chain(viewer: Any) -> None:
    audit_record(actor=viewer, action="token.issued", obj_type="token", obj_id="abc")
    audit_record(actor=None, action="worker.registered", obj_type="worker", obj_id="gpu-1")
    html = _page(viewer)
    assert "chain valid" in html and "2 events" in html
    assert "token.issued" in html and "worker.registered" in html
    filtered = _page(viewer, "?action=worker")
    assert "worker.registered" in filtered and "token.issued" not in filtered
    assert "Since (UTC)" in _page(viewer, "?since=not-a-date")


def test_the_audit_page_shows_a_broken_chain(viewer: Any) -> None:
    for i in range(3):
        audit_record(actor=None, action="test.event", obj_type="thing", obj_id=i)
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("ALTER TABLE audit_app_auditevent DISABLE TRIGGER audit_event_append_only")
        cur.execute("UPDATE audit_app_auditevent SET object_id = '99' WHERE id = 2")
        cur.execute("ALTER TABLE audit_app_auditevent ENABLE TRIGGER audit_event_append_only")
    html = _page(viewer)
    assert "chain broken" in html and "#2" in html
