"""Signed checkpoints: a superuser who rewrites the chain with the trigger bypassed and
every later hash recomputed, or who deletes its tail, leaves a chain the walk calls valid;
verification against the latest checkpoint names the rewrite or the truncation."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from audit_app.chain import verify_chain
from audit_app.checkpoints import checkpoint_create, verify_audit
from audit_app.models import AuditCheckpoint, AuditEvent
from audit_app.services import audit_record
from audit_app.signing import checkpoint_message, key_id, sign
from kernel.errors import DomainError
from tests.audit.conftest import delete_checkpoints, delete_tail, record, rewrite
from tests.support.actors import Caller

pytestmark = pytest.mark.django_db


def _verify_command(*args: str) -> tuple[int, str]:
    from io import StringIO

    out, err = StringIO(), StringIO()
    try:
        call_command("verify_audit", *args, stdout=out, stderr=err)
    except SystemExit as exit_info:
        return int(exit_info.code or 0), err.getvalue()
    return 0, out.getvalue()


def test_a_checkpoint_signs_the_head_with_the_configured_key(signing_key: Ed25519PrivateKey) -> None:
    events = record(3)
    row, created = checkpoint_create()
    assert created and row is not None
    assert (row.event_id, row.event_hash, row.key_id) == (3, events[2].hash, key_id(signing_key.public_key()))
    message = checkpoint_message(row.event_id, row.event_hash, row.signed_at)
    assert message.decode().startswith(f"specpact-audit-checkpoint:v1:3:{events[2].hash}:")
    signing_key.public_key().verify(base64.b64decode(row.signature), message)  # raises if not
    status = verify_audit()
    assert (status["valid"], status["problem"], status["intact_through"]) == (True, None, 3)
    assert status["checkpoint"]["id"] == row.pk
    # Nothing new since: the same checkpoint; a new event: a new one.
    assert checkpoint_create() == (row, False)
    record(1)
    assert checkpoint_create()[0].event_id == 4


def test_a_rewrite_with_recomputed_hashes_fools_the_walk_but_not_the_checkpoint(
    signing_key: Ed25519PrivateKey, viewer: Any
) -> None:
    record(2)
    first, _ = checkpoint_create()
    record(4)
    latest, _ = checkpoint_create()
    rewrite(4, reason="nothing happened here")

    assert verify_chain() == {"valid": True, "events": 6, "first_broken": None}  # the walk is fooled
    status = verify_audit()
    assert status["valid"] is False and status["problem"] == "rewritten"
    # Named from the checkpoint: event 6 no longer has the hash it signed, and checkpoint
    # 1 still vouches for events 1 to 2, so the rewrite is in events 3 to 6.
    assert status["first_broken"] == 6 and status["checkpoint"]["id"] == latest.pk
    assert status["intact_through"] == first.event_id == 2
    body = Caller("v", user=viewer).client().get("/api/v1/audit/verify").json()
    assert {k: body[k] for k in ("valid", "first_broken", "problem", "intact_through")} == {
        "valid": False,
        "first_broken": 6,
        "problem": "rewritten",
        "intact_through": 2,
    }
    code, err = _verify_command()
    assert code == 1 and "BROKEN at event #6" in err and "rewritten at or before event #6" in err
    assert "after event #2" in err
    # And nothing is signed over it.
    audit_record(actor=None, action="test.after", obj_type="thing", obj_id=9)
    with pytest.raises(DomainError, match="rewritten"):
        checkpoint_create()
    assert AuditCheckpoint.objects.count() == 2


def test_a_rewrite_before_an_older_checkpoint_is_named_from_that_one(signing_key: Ed25519PrivateKey) -> None:
    record(2)
    checkpoint_create()
    record(2)
    checkpoint_create()
    rewrite(1, action="test.forged")
    status = verify_audit()
    assert (status["problem"], status["first_broken"], status["intact_through"]) == ("rewritten", 2, None)


def test_a_truncated_tail_is_caught(signing_key: Ed25519PrivateKey, viewer: Any) -> None:
    record(5)
    row, _ = checkpoint_create()
    delete_tail(4)
    assert verify_chain() == {"valid": True, "events": 3, "first_broken": None}  # the walk is fooled
    status = verify_audit()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "truncated", 4)
    assert status["checkpoint"]["event_id"] == row.event_id == 5 and status["intact_through"] is None
    client = Client()
    client.force_login(viewer)
    html = client.get("/audit/").content.decode()
    assert "chain broken" in html and "the chain ends at #3" in html and "were deleted" in html


def test_a_truncated_tail_written_again_is_a_rewrite(signing_key: Ed25519PrivateKey) -> None:
    record(5)
    checkpoint_create()
    delete_tail(4)
    record(3)  # events 4, 5, 6 again, through the real service: a consistent chain
    assert verify_chain()["valid"]
    status = verify_audit()
    assert (status["problem"], status["first_broken"]) == ("rewritten", 5)


def test_an_edit_without_recomputing_is_the_walks_broken_link(signing_key: Ed25519PrivateKey) -> None:
    events = record(4)
    checkpoint_create()
    rewrite(4, reason="edited")  # the newest only: its hash changes, nothing after it
    assert verify_audit()["problem"] == "rewritten"
    from tests.audit.test_chain import _tamper

    _tamper("UPDATE audit_app_auditevent SET reason = %s WHERE id = %s", ["edited", events[1].id])
    status = verify_audit()
    # The earliest break wins: the walk's, at event 2.
    assert (status["problem"], status["first_broken"]) == ("broken_link", 2)


def test_a_checkpoint_under_another_key_is_not_trusted(signing_key: Ed25519PrivateKey) -> None:
    """The rewriter signs the new head with a key of their own: no configured key verifies
    it, and the rewrite before it, caught by the server's own checkpoint, is named first."""
    record(3)
    checkpoint_create()
    rewrite(2, reason="rewritten")
    theirs = Ed25519PrivateKey.generate()
    new_hash = AuditEvent.objects.get(id=3).hash
    now = timezone.now()
    AuditCheckpoint.objects.create(
        event_id=3,
        event_hash=new_hash,
        signed_at=now,
        key_id=key_id(theirs.public_key()),
        signature=sign(theirs, checkpoint_message(3, new_hash, now)),
    )
    status = verify_audit()
    assert (status["problem"], status["first_broken"]) == ("rewritten", 3)
    assert status["checkpoint"]["key_id"] == key_id(signing_key.public_key())


def test_a_forged_checkpoint_alone_makes_the_trail_invalid(signing_key: Ed25519PrivateKey) -> None:
    events = record(2)
    now = timezone.now()
    AuditCheckpoint.objects.create(
        event_id=2,
        event_hash=events[1].hash,
        signed_at=now,
        key_id=key_id(signing_key.public_key()),
        signature=sign(Ed25519PrivateKey.generate(), checkpoint_message(2, events[1].hash, now)),
    )
    status = verify_audit()
    assert (status["valid"], status["problem"], status["first_broken"]) == (False, "forged_checkpoint", None)
    assert "verifies under none of the configured keys" in _verify_command()[1]


def test_checkpoints_are_append_only(signing_key: Ed25519PrivateKey) -> None:
    record(1)
    checkpoint_create()
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        AuditCheckpoint.objects.update(event_hash="0" * 64)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        AuditCheckpoint.objects.all().delete()


def test_deleting_the_checkpoints_too_is_caught_by_an_exported_copy(
    signing_key: Ed25519PrivateKey, tmp_path: Path, settings: Any
) -> None:
    record(4)
    checkpoint_create()
    export = tmp_path / "checkpoints.json"
    call_command("audit_checkpoint", "--export", str(export))
    rewrite(2, reason="rewritten")
    delete_checkpoints()
    # With the stored checkpoints gone, the database alone can't tell (documented) ...
    assert verify_audit()["valid"] is True
    # ... the copy kept outside it can.
    code, err = _verify_command("--checkpoints", str(export))
    assert code == 1 and "rewritten at or before event #4" in err
    # Also on a machine without the private key, with the public key from the export.
    settings.AUDIT_SIGNING_KEY = ""
    pem = tmp_path / "public.pem"
    pem.write_text(next(iter(json.loads(export.read_text())["public_keys"].values())))
    assert verify_audit(extra=[])["checkpoint"] is None
    code, err = _verify_command("--checkpoints", str(export), "--public-key", str(pem))
    assert code == 1 and "an exported checkpoint signed event #4" in err


def test_the_api_exports_checkpoints_and_the_public_key_for_offline_checks(
    signing_key: Ed25519PrivateKey, viewer: Any
) -> None:
    """What docs/audit-checkpoints.md tells a reader to do, with nothing but the answers."""
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    record(2)
    checkpoint_create()
    record(1)
    checkpoint_create()
    client = Caller("v", user=viewer).client()
    listed = client.get("/api/v1/audit/checkpoints/").json()
    key = client.get("/api/v1/audit/checkpoints/public-key").json()
    assert listed["count"] == 2 and key["algorithm"] == "Ed25519"
    public = load_pem_public_key(key["public_key"].encode())
    for cp in listed["results"]:
        assert cp["key_id"] == key["key_id"]
        assert cp["message"].startswith(f"specpact-audit-checkpoint:v1:{cp['event_id']}:{cp['event_hash']}:")
        public.verify(base64.b64decode(cp["signature"]), cp["message"].encode())  # type: ignore[union-attr]


def test_the_documented_offline_check_verifies_an_export(
    signing_key: Ed25519PrivateKey, tmp_path: Path
) -> None:
    """The snippet of docs/audit-checkpoints.md, run on an export; a tampered entry fails."""
    from cryptography.exceptions import InvalidSignature

    record(2)
    checkpoint_create()
    record(1)
    checkpoint_create()
    path = tmp_path / "checkpoints.json"
    call_command("audit_checkpoint", "--export", str(path))
    from django.conf import settings

    snippet = (
        (Path(settings.BASE_DIR) / "docs/audit-checkpoints.md")
        .read_text()
        .split("```python\n")[1]
        .split("```")[0]
    )
    snippet = snippet.replace('open("checkpoints.json")', f"open({str(path)!r})")
    exec(compile(snippet, "docs/audit-checkpoints.md", "exec"), {})  # noqa: S102
    export = json.loads(path.read_text())
    assert len(export["checkpoints"]) == 2
    export["checkpoints"][0]["event_hash"] = "0" * 64
    path.write_text(json.dumps(export))
    with pytest.raises(InvalidSignature):
        exec(compile(snippet, "docs/audit-checkpoints.md", "exec"), {})  # noqa: S102


def test_a_walk_can_start_after_a_checkpoint(signing_key: Ed25519PrivateKey) -> None:
    """What a checkpoint stores is what a walk needs to start after it (issue 16's page)."""
    from tests.audit.test_chain import _tamper

    record(3)
    row, _ = checkpoint_create()
    later = record(2)
    after = (row.event_id, row.event_hash)
    assert verify_chain(after=after) == {"valid": True, "events": 2, "first_broken": None}
    _tamper("UPDATE audit_app_auditevent SET reason = %s WHERE id = %s", ["edited", later[1].id])
    assert verify_chain(after=after) == {"valid": False, "events": 2, "first_broken": later[1].id}
    # A checkpoint whose event no longer has the signed hash can't be a starting point.
    assert verify_chain(after=(row.event_id, "0" * 64))["first_broken"] == later[0].id
