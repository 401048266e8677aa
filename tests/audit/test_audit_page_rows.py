"""The audit page's rows are made in Python (audit_app/rows.py): each value escaped as the
template escaped it, the object and route linked, the first broken event marked."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from audit_app.models import AuditEvent
from audit_app.rows import event_rows, timeline_rows
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


def test_a_timeline_row_shows_the_move_and_the_override_escaped() -> None:
    """The release page's timeline (audit_app.rows.timeline_rows): from and to as badges, an
    override's justification, every value escaped as the template escaped it."""
    audit_record(
        actor=None,
        action="release.approved",
        obj_type="release",
        obj_id=3,
        before={"state": "awaiting_review"},
        after={"state": "approved", "justification": "<i>ship</i> & see"},
        reason="because <b>",
    )
    audit_record(actor=None, action="release.note", obj_type="release", obj_id=3, before=["x"], after=None)
    events = list(AuditEvent.objects.order_by("id"))
    html = str(timeline_rows(events))
    assert (
        '<td data-label="State"><span class="badge badge-awaiting_review">awaiting_review</span> → '
        '<span class="badge badge-approved">approved</span>'
        '<div class="muted">override: &lt;i&gt;ship&lt;/i&gt; &amp; see</div></td>'
    ) in html
    assert '<td data-label="Reason">because &lt;b&gt;</td>' in html
    # An event without states (or with a list where a state was expected) shows no badge.
    assert html.count('<td data-label="State"></td>') == 1
    at = events[0].at.isoformat()
    assert f'<time datetime="{at}">{events[0].at:%Y-%m-%d %H:%M:%S} UTC</time>' in html
