"""The audit page's rows are made in Python (audit_app/rows.py): each value escaped as the
template escaped it, the object and route linked, the first broken event marked."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from audit_app.models import AuditEvent
from audit_app.rows import event_rows
from audit_app.services import audit_record

pytestmark = pytest.mark.django_db


def test_a_row_escapes_what_it_shows_and_links_its_object_and_route(viewer: Any) -> None:
    event = audit_record(
        actor=None,
        action="release.proposed",
        obj_type="release",
        obj_id=7,
        route="r-1",
        reason='<b>"x"</b> & y',
    )
    client = Client()
    client.force_login(viewer)
    body = client.get("/audit/").content.decode()
    assert f'<tr id="event-{event.id}">' in body
    assert "&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; y" in body and '<b>"x"</b>' not in body
    assert '<a href="/releases/7/">release:7</a>' in body
    assert '<a href="/routes/r-1/">r-1</a>' in body
    assert f'title="{event.hash}">{event.hash[:12]}…</td>' in body


def test_an_object_without_a_page_is_named_without_a_link() -> None:
    audit_record(actor=None, action="thing.done", obj_type="thing", obj_id="<3>")
    html = str(event_rows(AuditEvent.objects.order_by("-id")))
    assert '<td class="mono">thing:&lt;3&gt;</td>' in html and "<a " not in html


def test_the_first_broken_event_is_marked() -> None:
    first = audit_record(actor=None, action="a.b", obj_type="thing", obj_id=1)
    second = audit_record(actor=None, action="a.b", obj_type="thing", obj_id=2)
    html = str(event_rows(AuditEvent.objects.order_by("-id"), first_broken=second.id))
    assert f'<tr id="event-{second.id}" class="diff-old">' in html
    assert f'<tr id="event-{first.id}">' in html
