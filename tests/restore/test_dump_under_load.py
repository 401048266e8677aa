"""Backup and restore under load (issue 26, point 6), with the real tools: a real gunicorn
takes idempotent contract uploads and release proposals from two threads while the test
signs audit checkpoints; `pg_dump -Fc` runs in the middle of it; `pg_restore` loads the dump
into a fresh database; `manage.py restore_check` holds that copy to the chain, its
checkpoints, the sequences and the keys; a second gunicorn serving the copy answers every
key it holds with the first answer and writes nothing. A copy with one audit row edited
fails the check, naming the row."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from audit_app.checkpoints import checkpoint_create
from benchmarks.control_plane.server import ROOT, environment
from tests.support.factories import example, make_token, make_user, variant
from tests.support.gunicorn import LiveServer, serve
from tests.support.gunicorn import test_database_url as live_database_url

pytestmark = pytest.mark.integration

KEY = Ed25519PrivateKey.generate()
PEM = KEY.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
).decode()


@dataclass
class Sent:
    """One idempotent POST and the answer it got."""

    key: str
    path: str
    body: dict[str, Any]
    status: int
    answer: Any
    done_at: float


@dataclass
class Traffic:
    sent: list[Sent] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def post(self, client: httpx.Client, key: str, path: str, body: dict[str, Any]) -> Sent | None:
        response = client.post(path, json=body, headers={"Idempotency-Key": key})
        if response.status_code not in (200, 201):
            with self.lock:
                self.errors.append(f"{path} {response.status_code}: {response.text[:300]}")
            return None
        sent = Sent(key, path, body, response.status_code, response.json(), time.monotonic())
        with self.lock:
            self.sent.append(sent)
        return sent


def _drive(server: LiveServer, token: str, traffic: Traffic, lane: str) -> None:
    """Upload a new route's first version, then propose it: two audited, idempotent writes
    a loop, until told to stop."""
    doc = example("contract-summaries-ngram")
    with server.client(token) as client:
        i = 0
        while not traffic.stop.is_set():
            slug = f"restore-{lane}-{i}"
            upload = traffic.post(
                client, f"up-{slug}", f"/api/v1/routes/{slug}/versions/", variant(doc, route=slug)
            )
            if upload is not None:
                body = {"route": slug, "candidate_version": 1, "reason": f"under load {i}"}
                traffic.post(client, f"rel-{slug}", "/api/v1/releases/", body)
            i += 1


def _admin_url(name: str) -> str:
    return live_database_url().rsplit("/", 1)[0] + f"/{name}"


def _sql(url: str, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else []


@pytest.fixture
def copies() -> Iterator[list[str]]:
    """Names for databases restored from the dump, dropped afterwards whatever happens."""
    names: list[str] = []
    yield names
    for name in names:
        _sql(_admin_url("postgres"), f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _restore(dump: Path, copies: list[str]) -> str:
    """A fresh database from template0 (as the pg_dump docs advise for a custom-format
    dump), the dump restored into it in one transaction: an error leaves nothing half
    restored (pg_restore -1 implies --exit-on-error)."""
    name = f"{live_database_url().rsplit('/', 1)[1]}_copy_{secrets.token_hex(3)}"
    copies.append(name)
    _sql(_admin_url("postgres"), f'CREATE DATABASE "{name}" TEMPLATE template0')
    url = _admin_url(name)
    subprocess.run(
        ["pg_restore", "--single-transaction", "--no-owner", "-d", url, str(dump)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return url


def _restore_check(url: str, tmp: Path) -> tuple[int, dict[str, Any]]:
    env = environment(url, tmp, {"AUDIT_SIGNING_KEY": PEM})
    done = subprocess.run(
        [sys.executable, "manage.py", "restore_check", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout, done.stderr[-2000:]
    report = json.loads(done.stdout)
    return done.returncode, {c["name"]: c for c in report["checks"]}


def _count(url: str, table: str) -> int:
    return int(_sql(url, f"SELECT count(*) FROM {table}")[0][0])  # noqa: S608  # the test's own names


def test_a_dump_taken_under_load_restores_verifies_and_replays(
    transactional_db: None, settings: Any, tmp_path: Path, copies: list[str]
) -> None:
    settings.AUDIT_SIGNING_KEY = PEM
    settings.AUDIT_DEV_SIGNING_KEY_FILE = ""
    token = make_token(make_user("rita-restorer", "admin", is_superuser=True), "admin").key
    live_url = live_database_url()
    dump = tmp_path / "specpact.dump"
    traffic = Traffic()
    with serve({"AUDIT_SIGNING_KEY": PEM}) as server:
        threads = [threading.Thread(target=_drive, args=(server, token, traffic, lane)) for lane in "ab"]
        for t in threads:
            t.start()
        try:
            checkpoints = 0
            deadline = time.monotonic() + 60
            while len(traffic.sent) < 30 and time.monotonic() < deadline:
                time.sleep(0.5)
                checkpoints += bool(checkpoint_create()[1])  # signed over the live chain, as beat does
            dump_started = time.monotonic()
            subprocess.run(
                ["pg_dump", "-Fc", "-d", live_url, "-f", str(dump)],
                check=True,
                capture_output=True,
                timeout=120,
            )
            dump_ended = time.monotonic()
            written_at_dump = len(traffic.sent)
            while len(traffic.sent) < written_at_dump + 6 and time.monotonic() < deadline + 30:
                time.sleep(0.2)
            checkpoint_create()
        finally:
            traffic.stop.set()
            for t in threads:
                t.join(60)
    assert traffic.errors == []
    before = [s for s in traffic.sent if s.done_at < dump_started]
    after = [s for s in traffic.sent if s.done_at > dump_ended]
    assert len(before) >= 30 and len(after) >= 6, "the dump was not taken in the middle of the traffic"
    assert checkpoints >= 1

    restored = _restore(dump, copies)
    code, checks = _restore_check(restored, tmp_path)
    assert code == 0, {n: c["problems"] for n, c in checks.items() if not c["ok"]}
    assert checks["audit_chain"]["counts"]["events"] > 0
    assert checks["audit_chain"]["counts"]["checkpoints"] >= 1
    assert checks["sequences"]["counts"]["behind"] == 0

    # One snapshot: every answer the traffic got before the dump began is in the copy, and
    # an answer's key is there exactly when the row it created is.
    held = {row[0] for row in _sql(restored, "SELECT key FROM specpact_idempotencykey")}
    assert {s.key for s in before} <= held
    releases = {row[0] for row in _sql(restored, "SELECT id FROM releases_app_release")}
    for s in traffic.sent:
        if s.path == "/api/v1/releases/":
            assert (s.answer["id"] in releases) == (s.key in held), s.key
    assert len(held) < len(traffic.sent), "some writes came after the snapshot, as they should under load"

    rows_before = {
        t: _count(restored, t)
        for t in ("releases_app_release", "contracts_app_contractversion", "audit_app_auditevent")
    }
    replayed = [s for s in traffic.sent if s.key in held]
    with (
        serve({"DATABASE_URL": restored, "AUDIT_SIGNING_KEY": PEM}) as copy_server,
        copy_server.client(token) as client,
    ):
        for s in replayed:
            again = client.post(s.path, json=s.body, headers={"Idempotency-Key": s.key})
            assert (again.status_code, again.json()) == (s.status, s.answer), s.key
            assert again.headers["Idempotent-Replayed"] == "true"
        verify = client.get("/api/v1/audit/verify?full=true").json()
        assert {t: _count(restored, t) for t in rows_before} == rows_before  # no second write
        # The copy takes new writes: its sequences hand out ids no restored row holds.
        slug = "restore-after-the-restore"
        doc = variant(example("contract-summaries-ngram"), route=slug)
        created = client.post(
            f"/api/v1/routes/{slug}/versions/", json=doc, headers={"Idempotency-Key": "new-1"}
        )
        assert created.status_code == 201, created.text
        body = {"route": slug, "candidate_version": 1, "reason": "after the restore"}
        proposed = client.post("/api/v1/releases/", json=body, headers={"Idempotency-Key": "new-2"})
        assert proposed.status_code == 201, proposed.text
        assert proposed.json()["id"] not in releases
    assert verify["valid"] is True, verify

    # The same dump again, one audit row edited behind the trigger's back: named.
    tampered = _restore(dump, copies)
    (edited,) = _sql(tampered, "SELECT id FROM audit_app_auditevent ORDER BY id OFFSET 10 LIMIT 1")[0]
    with psycopg.connect(tampered, autocommit=True) as conn:
        conn.execute("ALTER TABLE audit_app_auditevent DISABLE TRIGGER audit_event_append_only")
        conn.execute("UPDATE audit_app_auditevent SET reason = 'nothing happened' WHERE id = %s", [edited])
        conn.execute("ALTER TABLE audit_app_auditevent ENABLE TRIGGER audit_event_append_only")
    code, checks = _restore_check(tampered, tmp_path)
    assert code == 1
    assert [n for n, c in checks.items() if not c["ok"]] == ["audit_chain"]
    assert checks["audit_chain"]["problems"][0].startswith(f"audit chain BROKEN at event #{edited} ")
