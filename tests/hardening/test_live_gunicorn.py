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

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("transactional_db")]

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


def test_a_weak_if_match_never_matches_on_gunicorn(
    gunicorn_server: Any, route_v1: Any, proposer: Any
) -> None:
    token = make_token(proposer, "operator").key
    with gunicorn_server.client(token) as client:
        etag = client.get(f"/api/v1/routes/{route_v1.slug}/").headers["etag"]
        weak = client.patch(
            f"/api/v1/routes/{route_v1.slug}/",
            json={"description": "weak"},
            headers={"If-Match": f"W/{etag}"},
        )
    assert weak.status_code == 412, weak.text


def test_webhooks_hold_route_scope_and_hidden_loopback_on_gunicorn(
    gunicorn_server: Any, transactional_db: None, admin: Any, route_v1: Any
) -> None:
    scoped = make_token(admin, "admin", [route_v1.slug]).key
    with gunicorn_server.client(scoped) as client:
        theirs = client.post(
            "/api/v1/webhooks/",
            json={"url": "https://hooks.example.com/x", "events": ["*"], "route": "elsewhere"},
        )
        every = client.post("/api/v1/webhooks/", json={"url": "https://hooks.example.com/x", "events": ["*"]})
        hidden = client.post(
            "/api/v1/webhooks/",
            json={"url": "http://[::ffff:127.0.0.1]:9/x", "events": ["*"], "route": route_v1.slug},
        )
    assert theirs.status_code == 404, theirs.text
    assert every.status_code == 403, every.text
    assert hidden.status_code == 400, hidden.text
    assert [e["path"] for e in hidden.json()["errors"]] == ["url"]


@pytest.mark.parametrize("target", ["http://169.254.169.254/latest", "http://[64:ff9b::a9fe:a9fe]/"])
def test_a_run_target_outside_the_networks_is_refused_on_gunicorn(
    gunicorn_server: Any, versions: Any, operator: Any, target: str
) -> None:
    token = make_token(operator, "operator").key
    body = {
        "route": "contract-summaries",
        "baseline_version": 1,
        "candidate_version": 2,
        "lane": "extraction",
        "engine": "openai",
        "endpoints": {
            "baseline": {"base_url": target, "model": "m"},
            "candidate": {"base_url": "http://127.0.0.1:1", "model": "m"},
        },
        "concurrency": [1],
        "requests_per_level": 1,
    }
    with gunicorn_server.client(token) as client:
        response = client.post("/api/v1/runs/", json=body)
    assert response.status_code == 400, response.text
    assert [e["path"] for e in response.json()["errors"]] == ["endpoints.baseline.base_url"]


@pytest.mark.timeout(60)
def test_a_catastrophic_redaction_pattern_finishes_on_gunicorn(gunicorn_server: Any, operator: Any) -> None:
    token = make_token(operator, "operator").key
    raw = json.dumps({"prompt": "a" * 40 + "!"}) + "\n"
    with gunicorn_server.client(token) as client:
        response = client.post(
            "/api/v1/workloads/",
            params={"name": "catastrophic", "redact": "true", "redact_pattern": "(a+)+$"},
            content=raw.encode(),
            headers={"Content-Type": "application/x-ndjson"},
        )
    assert response.status_code == 201, response.text


def test_a_locked_name_stays_locked_in_any_spelling_on_gunicorn(
    gunicorn_server: Any, transactional_db: None
) -> None:
    from tests.support.factories import make_user

    user = make_user("pat", "viewer")
    user.set_password("right-password-1")
    user.save()
    with gunicorn_server.client() as client:
        codes = [_sign_in(client, gunicorn_server.base_url, "pat", "wrong").status_code for _ in range(5)]
        fullwidth = _sign_in(client, gunicorn_server.base_url, "\uff50at", "right-password-1")
    assert codes == [200, 200, 200, 200, 429], codes
    assert fullwidth.status_code == 429, fullwidth.status_code


def _sign_in(client: Any, base: str, name: str, password: str) -> Any:
    import re

    form = client.get("/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
    assert token, form.text[:300]
    origin = base.replace("http://", "https://")
    return client.post(
        "/login/",
        data={"username": name, "password": password, "csrfmiddlewaretoken": token.group(1)},
        headers={
            "Origin": origin,
            "Referer": f"{origin}/login/",
            "Cookie": f"csrftoken={form.cookies['csrftoken']}",
        },
    )


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
