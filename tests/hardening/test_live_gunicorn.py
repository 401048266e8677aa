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
