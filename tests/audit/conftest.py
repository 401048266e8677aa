"""A signing key for the audit checkpoints, and the tampering a database superuser can do:
switch the append-only trigger off (`ALTER TABLE … DISABLE TRIGGER`, or run as a replica),
edit or delete events, and recompute every later hash so that the walk still verifies."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.db import connection, transaction

from audit_app.chain import GENESIS, hash_of
from audit_app.models import AuditEvent
from audit_app.services import audit_record


def pem_of(key: Ed25519PrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@pytest.fixture
def signing_key(settings: Any) -> Ed25519PrivateKey:
    """The server's key, from AUDIT_SIGNING_KEY (as env.py reads it), fresh per test."""
    key = Ed25519PrivateKey.generate()
    settings.AUDIT_SIGNING_KEY = pem_of(key)
    settings.AUDIT_DEV_SIGNING_KEY_FILE = ""
    return key


def record(n: int) -> list[AuditEvent]:
    return [
        audit_record(actor=None, action="test.event", obj_type="thing", obj_id=i, reason=f"event {i}")
        for i in range(n)
    ]


def _with_trigger_off(table: str, trigger: str, statements: list[tuple[str, list[Any]]]) -> None:
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE refuses pending deferred checks
        cur.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
        for sql, params in statements:
            cur.execute(sql, params)
        cur.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")


def rewrite(event_id: int, **changes: Any) -> None:
    """Edit one event and recompute its hash and every later one, links included: the
    rewrite a superuser who knows the hash rule can do. The walk alone then verifies."""
    events = list(AuditEvent.objects.filter(id__gte=event_id).order_by("id"))
    before = AuditEvent.objects.filter(id=event_id - 1).values_list("hash", flat=True).first()
    prev = before or GENESIS
    statements = []
    for event in events:
        if event.id == event_id:
            for name, value in changes.items():
                setattr(event, name, value)
        event.prev_hash = prev
        event.hash = hash_of(event)
        prev = event.hash
        statements.append(
            (
                "UPDATE audit_app_auditevent SET reason = %s, action = %s, prev_hash = %s, hash = %s "
                "WHERE id = %s",
                [event.reason, event.action, event.prev_hash, event.hash, event.id],
            )
        )
    _with_trigger_off("audit_app_auditevent", "audit_event_append_only", statements)


def delete_tail(from_id: int) -> None:
    """Delete the newest events as a replica: ordinary triggers don't fire."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("SET LOCAL session_replication_role = replica")
        cur.execute("DELETE FROM audit_app_auditevent WHERE id >= %s", [from_id])


def delete_checkpoints() -> None:
    _with_trigger_off(
        "audit_app_auditcheckpoint",
        "audit_checkpoint_append_only",
        [("DELETE FROM audit_app_auditcheckpoint", [])],
    )


def alter_checkpoints(sql: str, params: list[Any]) -> None:
    """An UPDATE of the checkpoint rows with their trigger off, as a superuser can."""
    _with_trigger_off("audit_app_auditcheckpoint", "audit_checkpoint_append_only", [(sql, params)])


def verify_command(*args: str) -> tuple[int, str]:
    """`manage.py verify_audit …`: (exit code, what it wrote)."""
    from io import StringIO

    from django.core.management import call_command

    out, err = StringIO(), StringIO()
    try:
        call_command("verify_audit", *args, stdout=out, stderr=err)
    except SystemExit as exit_info:
        return int(exit_info.code or 0), err.getvalue()
    return 0, out.getvalue()
