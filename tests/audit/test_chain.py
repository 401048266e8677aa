from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from audit_app.chain import GENESIS, verify_chain
from audit_app.models import AuditEvent
from audit_app.services import audit_record

pytestmark = pytest.mark.django_db


def _record(n: int) -> list[AuditEvent]:
    return [
        audit_record(actor=None, action="test.event", obj_type="thing", obj_id=i, after={"i": i, "x": 1.5})
        for i in range(n)
    ]


def test_events_link_to_their_predecessor_and_verify() -> None:
    events = _record(3)
    assert events[0].prev_hash == GENESIS
    assert events[1].prev_hash == events[0].hash
    assert events[2].prev_hash == events[1].hash
    assert verify_chain() == {"valid": True, "events": 3, "first_broken": None}


def test_awkward_values_hash_the_same_after_a_round_trip_through_jsonb() -> None:
    from datetime import datetime
    from decimal import Decimal

    odd = {
        "big": 1e20,
        "tiny": 1.5e-7,
        "one": 1.0,
        "nan": float("nan"),
        "when": datetime(2026, 1, 2, 3, 4, 5),
        "price": Decimal("1.10"),
        "text": "ünïcode ✓",
        "nested": [{"b": 2, "a": [0.1, 2.5e-12]}],
    }
    audit_record(actor=None, action="test.odd", obj_type="thing", obj_id=1, before=odd, after=odd)
    assert verify_chain()["valid"]
    assert AuditEvent.objects.get().after["big"] == 10**20


def test_an_empty_chain_is_valid() -> None:
    assert verify_chain() == {"valid": True, "events": 0, "first_broken": None}


def test_the_event_belongs_to_the_callers_transaction() -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(actor=None, action="test.event", obj_type="thing", obj_id=1)
        raise RuntimeError("the caller fails after recording")
    assert AuditEvent.objects.count() == 0


def test_postgres_refuses_update_of_an_event() -> None:
    _record(1)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        AuditEvent.objects.update(reason="rewritten")


def test_postgres_refuses_delete_of_an_event() -> None:
    _record(1)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        AuditEvent.objects.all().delete()


def test_postgres_refuses_truncate_of_the_table() -> None:
    _record(1)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no deferred FK checks pending on the table
        cur.execute("TRUNCATE audit_app_auditevent")


def _tamper(sql: str, params: list[object]) -> None:
    """What someone with the table owner's rights could do: switch the trigger off."""
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE refuses pending deferred checks
        cur.execute("ALTER TABLE audit_app_auditevent DISABLE TRIGGER audit_event_append_only")
        cur.execute(sql, params)
        cur.execute("ALTER TABLE audit_app_auditevent ENABLE TRIGGER audit_event_append_only")


def test_verify_names_a_row_altered_with_the_trigger_disabled() -> None:
    events = _record(5)
    _tamper("UPDATE audit_app_auditevent SET reason = %s WHERE id = %s", ["nothing to see", events[2].id])
    assert verify_chain() == {"valid": False, "events": 5, "first_broken": events[2].id}


def test_verify_names_the_row_after_a_deleted_one() -> None:
    events = _record(4)
    _tamper("DELETE FROM audit_app_auditevent WHERE id = %s", [events[1].id])
    assert verify_chain() == {"valid": False, "events": 3, "first_broken": events[2].id}


def test_verify_catches_a_recomputed_hash_by_the_broken_link_after_it() -> None:
    """Rewriting a row and its own hash still breaks the next row's prev_hash."""
    events = _record(3)
    _tamper("UPDATE audit_app_auditevent SET hash = %s WHERE id = %s", ["f" * 64, events[1].id])
    status = verify_chain()
    assert status["valid"] is False
    assert status["first_broken"] == events[1].id


def test_verify_audit_command_exits_1_and_names_the_broken_link(capsys: pytest.CaptureFixture[str]) -> None:
    events = _record(3)
    call_command("verify_audit")
    assert "valid" in capsys.readouterr().out
    _tamper("UPDATE audit_app_auditevent SET action = %s WHERE id = %s", ["test.forged", events[1].id])
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_audit")
    assert exit_info.value.code == 1
    assert f"#{events[1].id}" in capsys.readouterr().err
