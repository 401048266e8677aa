"""AuditEventFilterSet: each filter on its own, bad values refused by the API and named
(then dropped) by the page, and the page and the API answering a query alike."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from audit_app.filtersets import AuditEventFilterSet
from audit_app.models import AuditEvent
from audit_app.selectors import audit_events
from audit_app.services import audit_record
from tests.support.actors import Caller
from tests.support.api import assert_filter_refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def events(approver: Any) -> list[AuditEvent]:
    """Oldest first: approved, rolled_back (system), uploaded on `x`, worker.registered."""
    audit_record(
        actor=approver, action="release.approved", obj_type="release", obj_id=7, route="support-chat"
    )
    audit_record(actor=None, action="release.rolled_back", obj_type="release", obj_id=8, route="support-chat")
    audit_record(
        actor=approver, action="contract.uploaded", obj_type="contract_version", obj_id="x:v1", route="x"
    )
    audit_record(actor=None, action="worker.registered", obj_type="worker", obj_id="gpu-1")
    return list(AuditEvent.objects.order_by("id"))


def actions(query: dict[str, str]) -> list[str]:
    filterset = AuditEventFilterSet(query, queryset=audit_events())
    assert filterset.is_valid(), filterset.errors
    return [e.action for e in filterset.qs]


def test_action_matches_exactly_or_as_a_dotted_prefix(events: list[AuditEvent]) -> None:
    assert actions({"action": "release"}) == ["release.rolled_back", "release.approved"]
    assert actions({"action": "release.approved"}) == ["release.approved"]
    assert actions({"action": "releas"}) == []  # a prefix is a whole dotted part


def test_route(events: list[AuditEvent]) -> None:
    assert actions({"route": "support-chat"}) == ["release.rolled_back", "release.approved"]


def test_actor_is_a_label_or_a_username(events: list[AuditEvent], approver: Any) -> None:
    mine = ["contract.uploaded", "release.approved"]
    assert actions({"actor": approver.username}) == mine
    assert actions({"actor": f"user:{approver.username}"}) == mine
    assert actions({"actor": "system"}) == ["worker.registered", "release.rolled_back"]


def test_object_is_type_and_id_or_a_type(events: list[AuditEvent]) -> None:
    assert actions({"object": "release:8"}) == ["release.rolled_back"]
    assert actions({"object": "release"}) == ["release.rolled_back", "release.approved"]
    assert actions({"object": "contract_version:x:v1"}) == ["contract.uploaded"]


def test_since_is_inclusive_and_until_exclusive(events: list[AuditEvent]) -> None:
    third = events[2].at.isoformat()
    assert actions({"since": third}) == ["worker.registered", "contract.uploaded"]
    assert actions({"until": third}) == ["release.rolled_back", "release.approved"]
    later = (timezone.now() + timedelta(hours=1)).isoformat()
    assert actions({"since": later}) == []


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("since", "yesterday"),
        ("until", "2026-13-01T00:00:00"),
        ("route", "Not A Slug"),
        ("action", "a" * 65),
        ("actor", "a" * 161),
        ("object", "a" * 266),  # longer than any object_type:object_id
    ],
)
def test_the_api_refuses_a_bad_value_naming_it(
    events: list[AuditEvent], viewer: Any, param: str, value: str
) -> None:
    response = Caller("v", user=viewer).client().get("/api/v1/audit/", {param: value})
    assert_filter_refused(response, param)


def test_the_page_names_a_bad_value_and_lists_every_event(events: list[AuditEvent], viewer: Any) -> None:
    client = Client()
    client.force_login(viewer)
    response = client.get("/audit/", {"since": "yesterday", "action": "worker"})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'role="alert"' in html and "since:" in html
    assert all(f'id="event-{e.id}"' in html for e in events)


def test_the_page_and_the_api_answer_a_query_alike(events: list[AuditEvent], viewer: Any) -> None:
    query = {"action": "release", "actor": "system"}
    api = Caller("v", user=viewer).client().get("/api/v1/audit/", query).json()
    client = Client()
    client.force_login(viewer)
    html = client.get("/audit/", query).content.decode()
    listed = [e.id for e in events if f'id="event-{e.id}"' in html]
    assert sorted(r["id"] for r in api["results"]) == listed == [events[1].id]
