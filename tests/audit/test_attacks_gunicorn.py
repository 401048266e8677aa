"""The superuser's attacks on the audit trail, answered by a real gunicorn (DEBUG off,
its key and head export from the environment as a deployment sets them): a rewrite with
the checkpoint's key id blanked, deleted checkpoint rows, and a scoped token's count."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from audit_app.checkpoints import checkpoint_create
from audit_app.services import audit_record
from tests.audit.conftest import alter_checkpoints, delete_checkpoints, pem_of, record, rewrite
from tests.support.factories import make_token
from tests.support.gunicorn import LiveServer, serve

pytestmark = pytest.mark.integration

KEY = Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def heads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("off-db") / "audit-heads.jsonl"


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: object, heads: Path) -> Iterator[LiveServer]:
    with serve({"AUDIT_SIGNING_KEY": pem_of(KEY), "AUDIT_HEAD_EXPORT_FILE": str(heads)}) as live:
        yield live


@pytest.fixture
def keyed(transactional_db: None, settings: Any, heads: Path) -> Path:
    """This process signs with the server's key and exports to the server's file."""
    settings.AUDIT_SIGNING_KEY = pem_of(KEY)
    settings.AUDIT_DEV_SIGNING_KEY_FILE = ""
    settings.AUDIT_HEAD_EXPORT_FILE = str(heads)
    heads.unlink(missing_ok=True)
    return heads


def _verify(server: LiveServer, token: str, query: str = "") -> dict[str, Any]:
    with server.client(token) as client:
        response = client.get(f"/api/v1/audit/verify{query}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_a_rewrite_with_a_blanked_key_id_is_a_break_on_gunicorn(
    server: LiveServer, keyed: Path, viewer: Any, admin: Any
) -> None:
    token = make_token(viewer, "viewer").key
    record(3)
    row, _ = checkpoint_create()
    assert _verify(server, token)["valid"] is True
    rewrite(2, reason="rewritten")
    alter_checkpoints("UPDATE audit_app_auditcheckpoint SET key_id = '' WHERE id = %s", [row.pk])
    # The exported head, signed, still names event 4's old hash: the rewrite is named there.
    body = _verify(server, token)
    assert (body["valid"], body["problem"], body["first_broken"]) == (False, "rewritten", 4), body
    assert "found by the head export" in body["detail"]
    # Without the export, the row itself: the key that signed it is not the key it names
    # (walked whole again: a broken answer stands until a full walk holds).
    keyed.unlink()
    body = _verify(server, make_token(admin, "admin").key, "?full=true")
    assert (body["valid"], body["problem"]) == (False, "forged_checkpoint"), body
    assert f"checkpoint #{row.pk}" in body["detail"] and "the row names key ''" in body["detail"]


def test_deleted_checkpoint_rows_are_a_break_on_gunicorn(
    server: LiveServer, keyed: Path, viewer: Any
) -> None:
    token = make_token(viewer, "viewer").key
    record(2)
    row, _ = checkpoint_create()  # committed: its head is in the server's file
    assert str(row.signature) in keyed.read_text()
    assert _verify(server, token)["valid"] is True
    delete_checkpoints()
    body = _verify(server, token)
    assert (body["valid"], body["problem"], body["first_broken"]) == (False, "checkpoint_missing", None), body
    assert f"checkpoint #{row.pk}" in body["detail"] and "no longer holds" in body["detail"]


def test_a_scoped_token_is_told_its_own_routes_count_on_gunicorn(
    server: LiveServer, keyed: Path, viewer: Any
) -> None:
    for route, n in (("support-chat", 2), ("contract-summaries", 4)):
        for i in range(n):
            audit_record(actor=None, action="route.updated", obj_type="route", obj_id=i, route=route)
    whole = _verify(server, make_token(viewer, "viewer").key)
    scoped = _verify(server, make_token(viewer, "viewer", routes=["support-chat"]).key)
    assert whole["events"] > scoped["events"]
    assert (scoped["valid"], scoped["events"]) == (True, 2)
