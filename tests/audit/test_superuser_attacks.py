"""What a database superuser can do to the audit trail, and what catches it (issue 21,
point 10): a checkpoint is trusted only when one of the keys in the settings verifies its
signature (never because of the key id its row names), and the heads exported off the
database catch checkpoint rows deleted with the events they covered."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import CommandError
from django.utils import timezone

from audit_app.checkpoints import checkpoint_create, verify_audit
from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.signing import checkpoint_message, key_id, public_pem, sign
from tests.audit.conftest import (
    alter_checkpoints,
    delete_checkpoints,
    delete_tail,
    pem_of,
    record,
    rewrite,
    verify_command,
)
from tests.support.actors import Caller
from tests.support.factories import make_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def head_file(settings: Any, tmp_path: Path) -> Path:
    path = tmp_path / "off-db" / "audit-heads.jsonl"
    path.parent.mkdir()
    settings.AUDIT_HEAD_EXPORT_FILE = str(path)
    return path


def test_a_rewrite_with_the_checkpoints_key_id_blanked_is_a_break(
    signing_key: Ed25519PrivateKey, viewer: Any
) -> None:
    """The finding's attack: rewrite an event, recompute the chain, blank the checkpoint's
    key_id. Before, a row whose key id was not the server's was skipped, and verify said valid."""
    record(4)
    row, _ = checkpoint_create()
    assert verify_audit()["valid"]  # the mark now stands after event 4
    rewrite(2, reason="rewritten")
    alter_checkpoints("UPDATE audit_app_auditcheckpoint SET key_id = '' WHERE id = %s", [row.pk])
    status = verify_audit()
    assert (status["valid"], status["problem"]) == (False, "forged_checkpoint")
    assert f"checkpoint #{row.pk} (event #4" in status["detail"]
    assert f"key {key_id(signing_key.public_key())} signed it but the row names key ''" in status["detail"]
    code, err = verify_command()
    assert code == 1 and f"checkpoint #{row.pk}" in err and "the row was altered" in err
    # The API's load (from the mark) says so too.
    body = Caller("v", user=viewer).client().get("/api/v1/audit/verify").json()
    assert (body["valid"], body["problem"]) == (False, "forged_checkpoint")


def test_a_blank_signature_is_a_break_naming_the_checkpoint(signing_key: Ed25519PrivateKey) -> None:
    record(2)
    row, _ = checkpoint_create()
    alter_checkpoints("UPDATE audit_app_auditcheckpoint SET signature = '' WHERE id = %s", [row.pk])
    status = verify_audit()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "forged_checkpoint", None)
    assert (
        status["detail"].startswith(f"checkpoint #{row.pk} (event #2")
        and "it has no signature" in status["detail"]
    )


def test_a_planted_checkpoint_under_a_foreign_key_is_a_break_not_skipped(
    signing_key: Ed25519PrivateKey,
) -> None:
    """Signed by the rewriter's own key and labelled with that key's id: it verifies under no
    key the settings name."""
    events = record(3)
    theirs = Ed25519PrivateKey.generate()
    now = timezone.now()
    planted = AuditCheckpoint.objects.create(
        event_id=3,
        event_hash=events[2].hash,
        signed_at=now,
        key_id=key_id(theirs.public_key()),
        signature=sign(theirs, checkpoint_message(3, events[2].hash, now)),
    )
    status = verify_audit()
    assert (status["valid"], status["problem"]) == (False, "forged_checkpoint")
    assert f"checkpoint #{planted.pk}" in status["detail"]
    assert "verifies under none of the configured keys" in status["detail"]
    assert key_id(signing_key.public_key()) in status["detail"]


def test_a_retired_key_verifies_only_when_the_settings_list_it(
    signing_key: Ed25519PrivateKey, settings: Any
) -> None:
    record(2)
    old_row, _ = checkpoint_create()
    new_key = Ed25519PrivateKey.generate()
    settings.AUDIT_SIGNING_KEY = pem_of(new_key)  # rotated
    status = verify_audit()
    assert (status["valid"], status["problem"]) == (False, "forged_checkpoint")
    assert f"checkpoint #{old_row.pk}" in status["detail"] and "rotated away" in status["detail"]
    settings.AUDIT_VERIFY_KEYS = public_pem(signing_key.public_key())
    record(1)
    new_row, _ = checkpoint_create()
    status = verify_audit()
    assert (status["valid"], status["intact_through"]) == (True, 3), status
    assert (old_row.key_id, new_row.key_id) == (
        key_id(signing_key.public_key()),
        key_id(new_key.public_key()),
    )


def test_each_checkpoint_is_exported_off_the_database(
    signing_key: Ed25519PrivateKey,
    head_file: Path,
    caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A log line on `specpact.audit.heads` and a line of the configured file, after commit."""
    record(2)
    with caplog.at_level(logging.INFO, logger="specpact.audit.heads"):
        with django_capture_on_commit_callbacks(execute=True):
            row, _ = checkpoint_create()
            assert not head_file.exists()  # not before the commit
        record(1)
        with django_capture_on_commit_callbacks(execute=True):
            second, _ = checkpoint_create()
    lines = [json.loads(line) for line in head_file.read_text().splitlines()]
    assert [(h["id"], h["event_id"], h["signature"]) for h in lines] == [
        (row.pk, 2, row.signature),
        (second.pk, 3, second.signature),
    ]
    assert lines[0]["format"] == "specpact-audit-head/v1" and lines[0]["key_id"] == row.key_id
    logged = [json.loads(r.getMessage()) for r in caplog.records if r.name == "specpact.audit.heads"]
    assert logged == lines


def test_deleted_checkpoint_rows_are_caught_against_the_export(
    signing_key: Ed25519PrivateKey, head_file: Path, viewer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Before, with the rows gone the database looked consistent and verify said valid."""
    record(3)
    with django_capture_on_commit_callbacks(execute=True):
        row, _ = checkpoint_create()
    assert verify_audit()["valid"]
    kept = head_file.read_bytes()
    delete_checkpoints()
    status = verify_audit()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "checkpoint_missing", None)
    assert f"line 1 is checkpoint #{row.pk} (event #3" in status["detail"]
    assert "which the database no longer holds" in status["detail"]
    # The API (from the mark) holds the rows to the configured file too.
    body = Caller("v", user=viewer).client().get("/api/v1/audit/verify").json()
    assert (body["valid"], body["problem"]) == (False, "checkpoint_missing")
    # And the command against a copy kept elsewhere, with no file configured.
    copy = head_file.parent / "copy.jsonl"
    copy.write_bytes(kept)
    head_file.unlink()
    code, err = verify_command("--against", str(copy))
    assert code == 1 and f"checkpoint #{row.pk}" in err and "no longer holds" in err


def test_a_deleted_tail_with_its_checkpoints_is_truncation_against_the_export(
    signing_key: Ed25519PrivateKey, head_file: Path, django_capture_on_commit_callbacks: Any
) -> None:
    record(4)
    with django_capture_on_commit_callbacks(execute=True):
        checkpoint_create()
    delete_tail(3)
    delete_checkpoints()
    assert AuditEvent.objects.count() == 2
    status = verify_audit()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "truncated", 3)
    assert "head export" in status["detail"]


def test_an_altered_exported_row_is_named_with_what_differs(
    signing_key: Ed25519PrivateKey, head_file: Path, django_capture_on_commit_callbacks: Any
) -> None:
    record(2)
    with django_capture_on_commit_callbacks(execute=True):
        row, _ = checkpoint_create()
    alter_checkpoints(
        "UPDATE audit_app_auditcheckpoint SET key_id = 'feedfeedfeedfeed' WHERE id = %s", [row.pk]
    )
    status = verify_audit()
    assert status["valid"] is False
    # The row's own check finds it first (its key id is not the key that signed it); the
    # export, on its own, names the field.
    assert verify_command("--against", str(head_file))[0] == 1
    from audit_app.heads import heads_read
    from audit_app.holding import Signed, hold_export

    finding = hold_export(heads_read(head_file), [Signed.of(r) for r in AuditCheckpoint.objects.all()], [], 2)
    assert finding is not None and "holds with another key_id" in str(finding.detail)


def test_an_unreadable_export_is_refused_naming_its_line(
    signing_key: Ed25519PrivateKey, tmp_path: Path, settings: Any
) -> None:
    bad = tmp_path / "heads.jsonl"
    bad.write_text('{"format": "specpact-audit-head/v1"}\n')
    with pytest.raises(CommandError, match=r"heads\.jsonl line 1"):
        verify_command("--against", str(bad))
    with pytest.raises(CommandError, match="no such file"):
        verify_command("--against", str(tmp_path / "absent.jsonl"))
    # Configured, the server's own check says it can't read it: a break, not a pass.
    settings.AUDIT_HEAD_EXPORT_FILE = str(bad)
    status = verify_audit()
    assert (status["valid"], status["problem"]) == (False, "checkpoint_missing")
    assert "the head export can't be read" in status["detail"] and "line 1" in status["detail"]


def test_a_scoped_tokens_verify_counts_only_its_routes_events(
    signing_key: Ed25519PrivateKey, admin: Any
) -> None:
    """Before, a token scoped to one route was told the whole chain's size."""
    from audit_app.services import audit_record

    for n in range(3):
        audit_record(actor=None, action="route.updated", obj_type="route", obj_id=n, route="support-chat")
    for n in range(5):
        audit_record(
            actor=None, action="route.updated", obj_type="route", obj_id=n, route="contract-summaries"
        )
    scoped = Caller("s", key=make_token(admin, "viewer", routes=["support-chat"]).key).client()
    whole = Caller("w", key=make_token(admin, "viewer").key).client()
    assert whole.get("/api/v1/audit/verify").json()["events"] == AuditEvent.objects.count() == 8 + 2  # tokens
    body = scoped.get("/api/v1/audit/verify").json()
    assert (body["valid"], body["events"]) == (True, 3)
    assert len(scoped.get("/api/v1/audit/").json()["results"]) == 3  # what it may list
