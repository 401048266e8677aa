from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from audit_app.services import audit_record
from tests.support.actors import Caller

pytestmark = pytest.mark.django_db


@pytest.fixture
def events(approver: Any) -> None:
    audit_record(
        actor=approver, action="release.approved", obj_type="release", obj_id=7, route="support-chat"
    )
    audit_record(actor=None, action="release.rolled_back", obj_type="release", obj_id=7, route="support-chat")
    audit_record(
        actor=approver, action="contract.uploaded", obj_type="contract_version", obj_id="x:v1", route="x"
    )
    audit_record(actor=None, action="worker.registered", obj_type="worker", obj_id="gpu-1")


def _get(user: Any, query: str = "") -> Any:
    return Caller("u", user=user).client().get(f"/api/v1/audit/{query}")


def test_verify_answers_the_public_payload(events: None, viewer: Any) -> None:
    response = Caller("v", user=viewer).client().get("/api/v1/audit/verify")
    body = response.json()
    # Added by the stored mark (tests/audit/test_chain_mark.py): what was hashed, and when.
    assert body.pop("checked")["walked"] == 4
    assert body == {
        "valid": True,
        "events": 4,
        "first_broken": None,
        # Added by the signed checkpoints (tests/audit/test_checkpoints.py): none signed here.
        "problem": None,
        "detail": None,
        "checkpoint": None,
        "intact_through": None,
    }


def test_verify_names_the_first_broken_link_over_http(events: None, viewer: Any) -> None:
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("ALTER TABLE audit_app_auditevent DISABLE TRIGGER audit_event_append_only")
        cur.execute("UPDATE audit_app_auditevent SET reason = 'edited' WHERE id = 2")
        cur.execute("ALTER TABLE audit_app_auditevent ENABLE TRIGGER audit_event_append_only")
    response = Caller("v", user=viewer).client().get("/api/v1/audit/verify")
    body = response.json()
    assert body.pop("checked")["scope"] == "full"  # the first check walks the whole chain
    assert body == {
        "valid": False,
        "events": 4,
        "first_broken": 2,
        "problem": "broken_link",
        "detail": None,
        "checkpoint": None,
        "intact_through": None,
    }


def test_filters(events: None, viewer: Any, approver: Any) -> None:
    def actions(query: str) -> list[str]:
        return [e["action"] for e in _get(viewer, query).json()["results"]]

    assert actions("?action=release") == ["release.rolled_back", "release.approved"]
    assert actions("?action=release.approved") == ["release.approved"]
    assert actions("?route=x") == ["contract.uploaded"]
    assert actions(f"?actor={approver.username}") == ["contract.uploaded", "release.approved"]
    assert actions("?actor=system") == ["worker.registered", "release.rolled_back"]
    assert actions("?object=release:7") == ["release.rolled_back", "release.approved"]
    assert actions("?object=worker") == ["worker.registered"]
    future = (timezone.now() + timedelta(hours=1)).isoformat()
    assert actions(f"?until={future.replace('+', '%2B')}") == actions("")
    assert actions(f"?since={future.replace('+', '%2B')}") == []


def test_pagination_and_bad_filters(events: None, viewer: Any) -> None:
    page = _get(viewer, "?limit=2").json()
    assert len(page["results"]) == 2
    assert page["next"]
    bad = _get(viewer, "?since=yesterday")
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["path"] == "since"


def test_an_event_shows_its_chain_fields(events: None, viewer: Any) -> None:
    first = _get(viewer, "?object=worker").json()["results"][0]
    assert first["object"] == "worker:gpu-1"
    assert first["actor"] == "system"
    assert first["route"] is None
    assert len(first["hash"]) == 64 and len(first["prev_hash"]) == 64
