"""The hostile-input classes hold on a real gunicorn too (DEBUG off, behind a proxy's
headers), not only in Django's test client: a decompressing charset is a 415 and a tampered
cursor a 400, both as problem+json, and an anonymous write is refused."""

from __future__ import annotations

import base64
import bz2
import json
from typing import Any

import pytest

from tests.support.factories import make_token

pytestmark = pytest.mark.integration

PROBLEM = "application/problem+json"


@pytest.fixture
def admin_token(transactional_db: None, admin: Any) -> str:
    return make_token(admin, "admin").key


def test_a_decompressing_charset_is_a_415_on_gunicorn(gunicorn_server: Any, admin_token: str) -> None:
    body = bz2.compress(json.dumps({"slug": "x", "name": "x"}).encode())
    with gunicorn_server.client(admin_token) as client:
        response = client.post(
            "/api/v1/routes/", content=body, headers={"Content-Type": "application/json; charset=bz2"}
        )
    assert response.status_code == 415, response.text
    assert response.headers["content-type"].startswith(PROBLEM)


def test_a_tampered_cursor_is_a_400_on_gunicorn(gunicorn_server: Any, admin_token: str) -> None:
    with gunicorn_server.client(admin_token) as client:
        response = client.get("/api/v1/audit/", params={"cursor": base64.b64encode(b"p=abc").decode()})
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith(PROBLEM)


def test_an_anonymous_write_is_refused_on_gunicorn(gunicorn_server: Any, transactional_db: None) -> None:
    with gunicorn_server.client() as client:
        response = client.post("/api/v1/routes/", json={"slug": "x", "name": "x"})
    assert response.status_code in (401, 403), response.text


def test_a_workload_upload_streams_through_gunicorn_and_a_hostile_line_is_a_400(
    gunicorn_server: Any, admin_token: str
) -> None:
    from workloads_app.models import WorkloadContent, WorkloadVersion

    lines = b"".join(json.dumps({"prompt": f"question {i}"}).encode() + b"\n" for i in range(20_000))
    ndjson = {"Content-Type": "application/x-ndjson"}
    with gunicorn_server.client(admin_token) as client:
        stored = client.post("/api/v1/workloads/?name=live", content=lines, headers=ndjson)
        deep = b'{"prompt": "x"}\n{"prompt": "x", "sampling": ' + b"[" * 10_000 + b"]" * 10_000 + b"}\n"
        refused = client.post("/api/v1/workloads/?name=deep", content=deep, headers=ndjson)
        keyed = {**ndjson, "Idempotency-Key": "live-1"}
        first = client.post("/api/v1/workloads/?name=keyed", content=b'{"prompt": "aaaa"}\n', headers=keyed)
        other = client.post("/api/v1/workloads/?name=keyed", content=b'{"prompt": "bbbb"}\n', headers=keyed)
    assert stored.status_code == 201, stored.text
    assert stored.json()["prompts"] == 20_000
    version = WorkloadVersion.objects.get(name="live")
    assert bytes(WorkloadContent.objects.get(version=version).data).count(b"\n") == 20_000
    assert refused.status_code == 400, refused.text
    assert refused.headers["content-type"].startswith(PROBLEM)
    assert [e["path"] for e in refused.json()["errors"]] == ["line 2"]
    assert not WorkloadVersion.objects.filter(name="deep").exists()
    assert (first.status_code, other.status_code) == (201, 422), other.text
