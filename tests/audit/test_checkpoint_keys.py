"""Where the checkpoint key comes from: AUDIT_SIGNING_KEY or AUDIT_SIGNING_KEY_FILE (never
the database), a development key made under var/ in DEBUG only, and nothing (checkpoints
off, said so) in production without one. Beat signs periodically."""

from __future__ import annotations

import base64
import logging
import os
import stat
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command

from audit_app.checkpoints import checkpoint_create, verify_audit
from audit_app.models import AuditCheckpoint
from audit_app.signing import key_id, public_pem, signing_key
from audit_app.tasks import CHECKPOINT_TASK, checkpoint_task
from kernel.errors import DomainError
from tests.audit.conftest import pem_of, record
from tests.support.actors import Caller

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_key(settings: Any) -> None:
    settings.AUDIT_SIGNING_KEY = ""
    settings.AUDIT_DEV_SIGNING_KEY_FILE = ""


def test_without_a_key_nothing_is_signed_and_everyone_is_told(
    no_key: None, viewer: Any, caplog: pytest.LogCaptureFixture
) -> None:
    record(2)
    with pytest.raises(DomainError, match="AUDIT_SIGNING_KEY"):
        checkpoint_create()
    with pytest.raises(CommandError, match="AUDIT_SIGNING_KEY"):
        call_command("audit_checkpoint")
    with caplog.at_level(logging.ERROR, logger="specpact.audit"):
        assert checkpoint_task() is None
    assert "no checkpoint signed" in caplog.text
    assert AuditCheckpoint.objects.count() == 0
    assert verify_audit()["valid"] and verify_audit()["checkpoint"] is None
    assert Caller("v", user=viewer).client().get("/api/v1/audit/checkpoints/public-key").status_code == 404


def test_in_debug_without_a_key_one_is_generated_under_var_and_the_log_says_so(
    settings: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "var" / "audit-signing-key.pem"
    settings.AUDIT_SIGNING_KEY = ""
    settings.AUDIT_DEV_SIGNING_KEY_FILE = str(path)
    record(1)
    with caplog.at_level(logging.WARNING, logger="specpact.audit"):
        row, created = checkpoint_create()
    assert created and path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "generated a development signing key" in caplog.text and str(path) in caplog.text
    on_disk = serialization.load_pem_private_key(path.read_bytes(), password=None)
    assert row.key_id == key_id(on_disk.public_key())  # type: ignore[arg-type]
    assert verify_audit()["intact_through"] == 1


def test_the_key_may_be_a_base64_seed_and_a_bad_one_fails_loudly_without_quoting_it(settings: Any) -> None:
    from django.core.exceptions import ImproperlyConfigured

    seed = os.urandom(32)
    settings.AUDIT_SIGNING_KEY = base64.b64encode(seed).decode()
    assert key_id(signing_key().public_key()) == key_id(  # type: ignore[union-attr]
        Ed25519PrivateKey.from_private_bytes(seed).public_key()
    )
    settings.AUDIT_SIGNING_KEY = "not-a-key-s3cret"
    with pytest.raises(ImproperlyConfigured) as bad:
        signing_key()
    assert "AUDIT_SIGNING_KEY" in str(bad.value) and "s3cret" not in str(bad.value)


def test_the_key_is_read_from_AUDIT_SIGNING_KEY_FILE_through_the_settings(tmp_path: Path) -> None:
    """A real process with only the environment: settings.py → env.py → the file."""
    key = Ed25519PrivateKey.generate()
    key_file = tmp_path / "audit.pem"
    key_file.write_text(pem_of(key))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUDIT_")}
    env |= {"AUDIT_SIGNING_KEY_FILE": str(key_file), "DEBUG": "0", "SECRET_KEY": "x" * 50}
    env |= {"SPECPACT_VAR_DIR": str(tmp_path / "var")}
    done = subprocess.run(
        [sys.executable, "manage.py", "audit_checkpoint", "--public-key"],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == public_pem(key.public_key())
    assert not (tmp_path / "var" / "audit-signing-key.pem").exists()  # DEBUG off: no dev key


def test_beat_signs_a_checkpoint_periodically(settings: Any) -> None:
    entry = django_settings.CELERY_BEAT_SCHEDULE["audit-checkpoint"]
    assert entry["task"] == CHECKPOINT_TASK
    assert entry["schedule"] == float(django_settings.AUDIT_CHECKPOINT_INTERVAL_S) > 0
    settings.AUDIT_SIGNING_KEY = pem_of(Ed25519PrivateKey.generate())
    record(2)
    first = checkpoint_task()
    assert first == AuditCheckpoint.objects.get().pk
    assert checkpoint_task() is None  # nothing new to sign
    out = StringIO()
    call_command("audit_checkpoint", stdout=out)
    assert "already signed by checkpoint" in out.getvalue()
