"""The audit page and `audit/verify` hash only the events after the stored mark (the last
event a walk found sound); the full walk (beat, `?full=true`, `verify_audit`) is what
catches an edit before it, and its finding then stands on every load."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.test import Client

from audit_app.checkpoints import checkpoint_create, verify_audit
from audit_app.marks import mark_get
from audit_app.tasks import VERIFY_FULL_TASK, verify_full_task
from audit_app.verification import audit_status
from tests.audit.conftest import _with_trigger_off, delete_tail, record, rewrite
from tests.support.actors import Caller

pytestmark = pytest.mark.django_db


def _edit_without_rehashing(event_id: int) -> None:
    _with_trigger_off(
        "audit_app_auditevent",
        "audit_event_append_only",
        [("UPDATE audit_app_auditevent SET reason = 'edited' WHERE id = %s", [event_id])],
    )


def test_the_first_check_walks_everything_and_later_loads_only_the_new_events() -> None:
    record(5)
    first = audit_status()
    assert first["valid"] and first["checked"]["scope"] == "full" and first["checked"]["walked"] == 5
    record(2)
    later = audit_status()
    assert (later["valid"], later["events"]) == (True, 7)
    assert later["checked"]["scope"] == "since_mark"
    assert (
        later["checked"]["walked_from"],
        later["checked"]["walked"],
        later["checked"]["full_through"],
    ) == (6, 2, 5)
    mark = mark_get()
    assert mark is not None and mark.through_id == 7
    assert audit_status()["checked"]["walked"] == 0  # nothing new: nothing hashed


def test_a_load_with_nothing_new_walks_nothing_and_leaves_the_mark_alone() -> None:
    """No event after the mark: the walk's answer without its query, and no UPDATE (it
    would match no row); the mark still moves on the next load that has something new."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from audit_app.chain import verify_chain

    record(3)
    audit_status()
    mark = mark_get()
    assert mark is not None and mark.through_id == 3
    with CaptureQueriesContext(connection) as captured:
        assert verify_chain(after=(3, mark.through_hash), through=3) == {
            "valid": True,
            "events": 0,
            "first_broken": None,
        }
        status = audit_status()
    assert status["valid"] and status["checked"]["walked"] == 0 and status["events"] == 3
    sql = [q["sql"] for q in captured.captured_queries]
    assert not [q for q in sql if q.startswith("UPDATE")]
    assert not [q for q in sql if '"audit_app_auditevent"."id" > ' in q]  # no walk
    record(1)
    assert audit_status()["checked"]["walked"] == 1
    moved = mark_get()
    assert moved is not None and moved.through_id == 4


def test_a_new_event_edited_after_the_mark_is_caught_on_load() -> None:
    record(3)
    verify_audit()
    record(2)
    _edit_without_rehashing(5)
    status = audit_status()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "broken_link", 5)
    assert mark_get().through_id == 3  # type: ignore[union-attr]  # not moved over a broken link


def test_an_edit_before_the_mark_is_the_full_walks_to_catch_and_then_stands(viewer: Any) -> None:
    record(6)
    verify_audit()
    _edit_without_rehashing(2)
    # A load hashes nothing before the mark, and says so: the full walk it rests on, and when.
    status = audit_status()
    assert (
        status["valid"]
        and status["checked"]["scope"] == "since_mark"
        and status["checked"]["full_through"] == 6
    )
    assert verify_full_task() is False  # beat's periodic full walk
    for status in (audit_status(), Caller("v", user=viewer).client().get("/api/v1/audit/verify").json()):
        assert (status["valid"], status["problem"], status["first_broken"]) == (False, "broken_link", 2)
    page = Client()
    page.force_login(viewer)
    html = page.get("/audit/").content.decode()
    assert "chain broken" in html and "<strong>#2</strong>" in html and "every event hashed" in html


def test_an_edit_of_the_marks_own_event_makes_the_load_walk_everything() -> None:
    record(4)
    verify_audit()
    _edit_without_rehashing(4)
    status = audit_status()
    assert (status["valid"], status["first_broken"], status["checked"]["scope"]) == (False, 4, "full")


def test_a_rewrite_with_recomputed_hashes_is_caught_on_load_and_named_by_the_full_walk(
    signing_key: Ed25519PrivateKey,
) -> None:
    record(3)
    first, _ = checkpoint_create()  # walks whole, so it also leaves the mark
    record(3)
    checkpoint_create()
    assert audit_status()["intact_through"] == 6
    rewrite(2, reason="nothing happened here")  # before the mark, every later hash recomputed
    # The recomputed hashes reach the mark's event: the load walks everything and names the
    # oldest checkpoint that no longer holds.
    status = audit_status()
    assert (status["valid"], status["problem"], status["checked"]["scope"]) == (False, "rewritten", "full")
    assert status["checkpoint"]["id"] == first.pk  # type: ignore[union-attr]


def test_a_deleted_tail_is_caught_on_load(signing_key: Ed25519PrivateKey) -> None:
    record(5)
    checkpoint_create()
    delete_tail(4)
    status = audit_status()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "truncated", 4)


def test_a_full_walk_on_demand_needs_the_admin_role(viewer: Any, admin: Any) -> None:
    record(2)
    verify_audit()
    assert Caller("v", user=viewer).client().get("/api/v1/audit/verify?full=true").status_code == 403
    body = Caller("a", user=admin).client().get("/api/v1/audit/verify?full=true").json()
    assert body["checked"]["scope"] == "full" and body["checked"]["walked"] == 2
    assert (
        Caller("v", user=viewer).client().get("/api/v1/audit/verify").json()["checked"]["scope"]
        == "since_mark"
    )


def test_a_bad_full_flag_is_refused_naming_it(viewer: Any) -> None:
    response = Caller("v", user=viewer).client().get("/api/v1/audit/verify?full=maybe")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "full"


def test_beat_walks_the_whole_chain_periodically() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["audit-verify-full"]
    assert entry["task"] == VERIFY_FULL_TASK and entry["schedule"] == settings.AUDIT_FULL_VERIFY_INTERVAL_S
