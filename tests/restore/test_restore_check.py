"""`manage.py restore_check` on this run's PostgreSQL test database: what it says of a sound
database, and that each thing a bad restore leaves wrong is named (an edited audit event,
a sequence behind its table, a trigger switched off, a key with no answer or an answer
naming a missing row)."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from audit_app.checkpoints import checkpoint_create
from audit_app.services import audit_record
from kernel.models import IdempotencyKey
from specpact.restore.schema import APPEND_ONLY_TRIGGERS, installed_triggers

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed(settings: Any) -> None:
    key = Ed25519PrivateKey.generate()
    settings.AUDIT_SIGNING_KEY = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    settings.AUDIT_DEV_SIGNING_KEY_FILE = ""
    for i in range(4):
        audit_record(actor=None, action="test.event", obj_type="thing", obj_id=i, reason=f"event {i}")
    checkpoint_create()


def _check(*args: str) -> tuple[int, dict[str, Any]]:
    out = StringIO()
    try:
        call_command("restore_check", "--json", *args, stdout=out)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, {c["name"]: c for c in json.loads(out.getvalue())["checks"]}


def _key(key: str, **fields: Any) -> IdempotencyKey:
    defaults = {"scope": "user:1", "fingerprint": "f" * 64, "expires_at": timezone.now() + timedelta(hours=1)}
    return IdempotencyKey.objects.create(key=key, **{**defaults, **fields})


def test_a_sound_database_passes_every_check_with_its_counts(signed: None) -> None:
    code, checks = _check()
    assert code == 0, {n: c["problems"] for n, c in checks.items() if not c["ok"]}
    assert list(checks) == [
        "migrations", "constraints", "append_only", "sequences",
        "audit_chain", "idempotency_keys", "outbox", "counts",
    ]  # fmt: skip
    assert checks["audit_chain"]["counts"] == {"events": 4, "checkpoints": 1}
    assert "all 1 signed checkpoints match it" in checks["audit_chain"]["summary"]
    assert checks["migrations"]["counts"]["pending"] == 0
    assert checks["counts"]["counts"]["audit_app.AuditEvent"] == 4


def test_the_words_end_with_the_verdict(signed: None) -> None:
    out = StringIO()
    call_command("restore_check", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[4].startswith("ok   audit_chain: 4 events walked, the chain verifies end to end")
    assert lines[-1].startswith("restore check passed (8 checks on ")


def test_an_edited_audit_event_fails_naming_it(signed: None) -> None:
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE refuses pending deferred checks
        cur.execute("ALTER TABLE audit_app_auditevent DISABLE TRIGGER audit_event_append_only")
        cur.execute(
            "UPDATE audit_app_auditevent SET reason = 'edited' "
            "WHERE id = (SELECT min(id) + 1 FROM audit_app_auditevent)"
        )
        cur.execute("ALTER TABLE audit_app_auditevent ENABLE TRIGGER audit_event_append_only")
        cur.execute("SELECT min(id) + 1 FROM audit_app_auditevent")
        (edited,) = cur.fetchone()
    code, checks = _check()
    assert code == 1
    assert not checks["audit_chain"]["ok"]
    assert checks["audit_chain"]["problems"][0].startswith(f"audit chain BROKEN at event #{edited} ")
    assert [n for n, c in checks.items() if not c["ok"]] == ["audit_chain"]


def test_a_disabled_trigger_fails_naming_it(signed: None) -> None:
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("ALTER TABLE audit_app_auditcheckpoint DISABLE TRIGGER audit_checkpoint_append_only")
    code, checks = _check()
    assert code == 1
    assert checks["append_only"]["problems"] == [
        "trigger audit_checkpoint_append_only on audit_app_auditcheckpoint is disabled (tgenabled 'D')"
    ]


def test_a_sequence_behind_its_table_fails_naming_it() -> None:
    rows = [_key(f"seq-{i}") for i in range(3)]
    with connection.cursor() as cur:
        cur.execute("SELECT last_value FROM specpact_idempotencykey_id_seq")
        (before,) = cur.fetchone()
        # setval is not transactional: the finally puts it back for the tests after this one.
        cur.execute("SELECT setval('specpact_idempotencykey_id_seq', %s)", [rows[0].pk])
        try:
            code, checks = _check()
        finally:
            cur.execute("SELECT setval('specpact_idempotencykey_id_seq', %s)", [before])
    assert code == 1
    (problem,) = checks["sequences"]["problems"]
    assert problem.startswith(
        f"sequence specpact_idempotencykey_id_seq would hand out {rows[0].pk + 1}, but "
        f"specpact_idempotencykey.id already holds {rows[-1].pk}"
    )


def test_a_key_without_an_answer_or_naming_a_missing_row_fails(admin: Any) -> None:
    _key(
        "answered", scope=f"user:{admin.pk}", status=201, body="{}", headers={"Location": "/api/v1/routes/x/"}
    )
    _key("half-done", scope=f"user:{admin.pk}")
    _key(
        "gone",
        scope=f"user:{admin.pk}",
        status=201,
        body='{"id": 999999}',
        headers={"Location": "/api/v1/releases/999999/"},
    )
    code, checks = _check()
    assert code == 1
    assert checks["idempotency_keys"]["problems"] == [
        f"key 'half-done' of user:{admin.pk} has no stored answer "
        "(a request caught half done: the copy is torn)",
        f"key 'gone' of user:{admin.pk} answered 201 with Location /api/v1/releases/999999/: "
        "no such release here",
    ]
    assert checks["idempotency_keys"]["counts"]["keys"] == 3


def test_the_trigger_list_names_every_trigger_the_migrations_create() -> None:
    named = {(table, name) for table, names in APPEND_ONLY_TRIGGERS.items() for name in names}
    assert installed_triggers() == named


def test_a_queued_run_whose_message_was_published_is_counted_and_named(versions: Any, operator: Any) -> None:
    """The dump holds the run and its dispatch marked published, not the broker's copy of
    the message: with Redis lost too, nothing would ever start it, so the check names it."""
    from benchmarks_app.models import OutboxMessage
    from tests.support.workers import SMALL_LOAD, openai_run

    waiting = openai_run(versions, actor=operator, pool="cpu", overrides=SMALL_LOAD)
    unpublished = openai_run(versions, actor=operator, pool="cpu", overrides=SMALL_LOAD)
    OutboxMessage.objects.filter(run=waiting).update(published_at=timezone.now(), publish_count=1)
    code, checks = _check()
    assert code == 0, {n: c["problems"] for n, c in checks.items() if not c["ok"]}
    outbox = checks["outbox"]
    assert outbox["counts"]["messages"] == 2
    assert outbox["counts"]["pending"] == 1
    assert outbox["counts"]["queued_on_broker"] == 1
    assert f"#{waiting.pk}" in outbox["summary"] and f"#{unpublished.pk}" not in outbox["summary"]


def test_a_dispatch_for_an_attempt_the_run_never_reached_fails_naming_it(
    versions: Any, operator: Any
) -> None:
    from benchmarks_app.models import OutboxMessage
    from tests.support.workers import SMALL_LOAD, openai_run

    run = openai_run(versions, actor=operator, pool="cpu", overrides=SMALL_LOAD)
    message = OutboxMessage.objects.get(run=run)
    OutboxMessage.objects.filter(pk=message.pk).update(attempt=2, task_id=f"run-{run.pk}-attempt-2")
    code, checks = _check()
    assert code == 1
    assert checks["outbox"]["problems"] == [
        f"outbox message #{message.pk} is for attempt 2 of run #{run.pk}, which never made it"
    ]


def test_a_copy_older_than_the_head_export_fails_as_truncated(
    signed: None, settings: Any, tmp_path: Any
) -> None:
    """The head export is not rolled back by a restore: heads signed after the dump name
    events the copy lacks (docs/backup.md, "A restore from an older dump")."""
    from audit_app.heads import head_export
    from audit_app.holding import Signed
    from audit_app.models import AuditCheckpoint, AuditEvent

    settings.AUDIT_HEAD_EXPORT_FILE = str(tmp_path / "heads.jsonl")
    for row in AuditCheckpoint.objects.order_by("id"):
        head_export(Signed.of(row))
    dumped_through = AuditEvent.objects.order_by("-id").values_list("id", flat=True)[0]
    for i in range(2):
        audit_record(
            actor=None, action="test.event", obj_type="thing", obj_id=10 + i, reason="after the dump"
        )
    later, _ = checkpoint_create()
    assert later is not None
    head_export(Signed.of(later))
    code, checks = _check()
    assert code == 0, checks["audit_chain"]["problems"]  # the live database holds to its export
    # The copy of a dump taken before those two events and their checkpoint.
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cur.execute("ALTER TABLE audit_app_auditevent DISABLE TRIGGER audit_event_append_only")
        cur.execute("ALTER TABLE audit_app_auditcheckpoint DISABLE TRIGGER audit_checkpoint_append_only")
        cur.execute("DELETE FROM audit_app_auditcheckpoint WHERE id = %s", [later.pk])
        cur.execute("DELETE FROM audit_app_auditevent WHERE id > %s", [dumped_through])
        cur.execute("ALTER TABLE audit_app_auditevent ENABLE TRIGGER audit_event_append_only")
        cur.execute("ALTER TABLE audit_app_auditcheckpoint ENABLE TRIGGER audit_checkpoint_append_only")
    code, checks = _check()
    assert code == 1
    assert [n for n, c in checks.items() if not c["ok"]] == ["audit_chain"]
    (problem,) = checks["audit_chain"]["problems"]
    assert problem.startswith(f"audit chain BROKEN at event #{dumped_through + 1} (truncated): "), problem


def test_the_checkpoints_verify_under_a_public_key_given_and_not_under_another(
    signed: None, settings: Any, tmp_path: Any
) -> None:
    """A machine that holds no signing key checks a copy with the public key alone."""
    from audit_app.signing import public_pem, signing_key

    private = signing_key()
    assert private is not None
    ours, theirs = tmp_path / "ours.pem", tmp_path / "theirs.pem"
    ours.write_text(public_pem(private.public_key()))
    theirs.write_text(public_pem(Ed25519PrivateKey.generate().public_key()))
    settings.AUDIT_SIGNING_KEY = ""
    code, checks = _check("--public-key", str(ours))
    assert code == 0, checks["audit_chain"]["problems"]
    assert "all 1 signed checkpoints match it" in checks["audit_chain"]["summary"]
    code, checks = _check("--public-key", str(theirs))
    assert code == 1
    assert [n for n, c in checks.items() if not c["ok"]] == ["audit_chain"]
    assert "(forged_checkpoint)" in checks["audit_chain"]["problems"][0]


def test_without_the_deployments_keys_the_checkpoints_do_not_verify(signed: None, settings: Any) -> None:
    """The keys are not in the dump (docs/backup.md): a copy checked without them fails."""
    settings.AUDIT_SIGNING_KEY = ""
    settings.AUDIT_VERIFY_KEYS = ""
    code, checks = _check()
    assert code == 1
    assert [n for n, c in checks.items() if not c["ok"]] == ["audit_chain"]
