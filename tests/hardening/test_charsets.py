"""A body's charset names a text encoding or the request is a 415: bz2, zlib, base64, rot13
… are Python codecs too, and running one on a body turned 275 bytes into 256 MiB."""

from __future__ import annotations

import asyncio
import bz2
import json
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest
from rest_framework.test import APIClient

from contracts_app.models import Route

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
BODY = {"slug": "charset-route", "name": "Charset route"}


def _post(client: APIClient, charset: str, body: bytes) -> Any:
    return client.generic(
        "POST", "/api/v1/routes/", body, content_type=f"application/json; charset={charset}"
    )


@pytest.mark.parametrize(
    ("charset", "body"),
    [
        ("bz2", bz2.compress(json.dumps(BODY).encode())),
        ("zlib", b"x\x9c\xab\xae\x05\x00\x01u\x00\xf9"),
        ("bz2_codec", b"BZh91AY&SY"),
        ("rot13", json.dumps(BODY).encode()),
        ("base64", b"e30="),
        ("hex", b"7b7d"),
        ("uu", b"begin 666 <data>\n"),
        ("quopri", b"{}"),
        ("punycode", b"{}"),
        ("unicode_escape", b"{}"),
        ("no-such-charset", b"{}"),
    ],
)
def test_a_charset_that_is_not_a_text_encoding_is_a_415_naming_it(
    admin_client: APIClient, charset: str, body: bytes
) -> None:
    response = _post(admin_client, charset, body)
    assert response.status_code == 415, (charset, response.status_code, response.content[:200])
    assert response["Content-Type"] == PROBLEM
    assert charset in response.json()["detail"]
    assert not Route.objects.filter(slug=BODY["slug"]).exists()


@pytest.mark.parametrize("path", ["/api/v1/routes/", "/routes/"])
def test_the_wsgi_application_answers_a_non_text_charset_with_a_query_string_with_a_415(path: str) -> None:
    # Django builds the request, decoding the query string with the Content-Type's charset,
    # before any middleware runs: a 500 from the WSGI handler itself without the guard.
    from specpact.wsgi import application

    environ: dict[str, Any] = {}
    setup_testing_defaults(environ)
    environ.update(PATH_INFO=path, QUERY_STRING="q=a", CONTENT_TYPE="application/json; charset=bz2")
    answered: list[Any] = []
    body = b"".join(application(environ, lambda status, headers: answered.append((status, dict(headers)))))
    status, headers = answered[0]
    assert status.startswith("415 "), (status, body[:200])
    assert headers["Content-Type"] == PROBLEM
    assert "bz2" in json.loads(body)["detail"]


def test_the_asgi_application_answers_a_non_text_charset_with_a_415() -> None:
    from specpact.asgi import application

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": "/api/v1/routes/", "raw_path": b"/api/v1/routes/", "query_string": b"q=a", "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json; charset=zlib")],
        "client": ("127.0.0.1", 1), "server": ("testserver", 80),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(application(scope, receive, send))
    assert sent[0]["status"] == 415
    assert (b"content-type", PROBLEM.encode()) in [(k.lower(), v) for k, v in sent[0]["headers"]]
    assert "zlib" in json.loads(sent[1]["body"])["detail"]


def test_utf16_is_a_text_encoding_and_is_read(admin_client: APIClient) -> None:
    response = _post(admin_client, "utf-16", json.dumps(BODY).encode("utf-16"))
    assert response.status_code == 201, response.content[:300]
    assert Route.objects.filter(slug=BODY["slug"]).exists()


def test_a_body_the_declared_text_charset_cannot_decode_is_a_400(admin_client: APIClient) -> None:
    for charset, body in (("utf-16", b"{\x00}"), ("utf-8", b'{"slug": "\xff"}'), ("ascii", b'{"a": "\xe9"}')):
        response = _post(admin_client, charset, body)
        assert response.status_code == 400, (charset, response.status_code, response.content[:200])
        assert response["Content-Type"] == PROBLEM
