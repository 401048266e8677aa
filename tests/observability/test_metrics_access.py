"""Who may read `/metrics`: an address in METRICS_ALLOWED_NETWORKS (loopback by default),
or an API token not scoped to routes."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError
from django.test import Client

from tests.support.actors import Caller
from tests.support.factories import make_token

pytestmark = pytest.mark.django_db

ELSEWHERE = "203.0.113.7"  # TEST-NET-3: never in the default allowlist


def _get(address: str = ELSEWHERE, key: str | None = None) -> Any:
    headers = {"HTTP_AUTHORIZATION": f"Token {key}"} if key else {}
    return Client(REMOTE_ADDR=address).get("/metrics", **headers)


def test_it_answers_loopback_without_a_token() -> None:
    response = _get("127.0.0.1")
    assert response.status_code == 200
    assert b"specpact_up 1.0" in response.content


def test_it_refuses_an_address_outside_the_allowlist_without_a_token() -> None:
    response = _get()
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response["WWW-Authenticate"] == "Token"
    assert "METRICS_ALLOWED_NETWORKS" in response.json()["detail"]


def test_it_takes_a_configured_network(settings: Any) -> None:
    settings.METRICS_ALLOWED_NETWORKS = "203.0.113.0/24"
    assert _get().status_code == 200
    assert _get("127.0.0.1").status_code == 401  # loopback is only the default


def test_an_empty_allowlist_needs_a_token_even_on_loopback(settings: Any) -> None:
    settings.METRICS_ALLOWED_NETWORKS = ""
    assert _get("127.0.0.1").status_code == 401


def test_it_accepts_a_viewer_token_not_scoped_to_routes(viewer: Any) -> None:
    issued = make_token(viewer, "viewer")
    response = _get(key=issued.key)
    assert response.status_code == 200
    assert b"# HELP specpact_releases Releases by state." in response.content


def test_it_refuses_a_token_scoped_to_routes(pipeline: Caller) -> None:
    response = _get(key=pipeline.key)
    assert response.status_code == 403
    assert "scoped to routes" in response.json()["detail"]


def test_it_refuses_a_wrong_token_even_from_loopback(viewer: Any) -> None:
    issued = make_token(viewer, "viewer")
    response = _get("127.0.0.1", key=issued.key + "x")
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."


def test_it_refuses_a_revoked_token(viewer: Any) -> None:
    issued = make_token(viewer, "viewer")
    issued.token.revoked_at = issued.token.created_at
    issued.token.save(update_fields=["revoked_at"])
    assert _get(key=issued.key).status_code == 401


def test_a_token_of_an_inactive_user_is_refused(viewer: Any) -> None:
    issued = make_token(viewer, "viewer")
    viewer.is_active = False
    viewer.save(update_fields=["is_active"])
    response = _get(key=issued.key)
    assert response.status_code == 401
    assert "inactive" in response.json()["detail"]


def test_it_answers_only_reads() -> None:
    assert Client(REMOTE_ADDR="127.0.0.1").post("/metrics").status_code == 405


def test_a_database_that_fails_gives_up_0_not_a_500(monkeypatch: pytest.MonkeyPatch) -> None:
    from observability_app import selectors

    def down() -> dict[str, int]:
        raise DatabaseError("connection refused")

    monkeypatch.setattr(selectors, "releases_by_state", down)
    response = _get("127.0.0.1")
    assert response.status_code == 200
    assert b"specpact_up 0.0" in response.content
    assert b'specpact_scrape_error{error="DatabaseError"} 1.0' in response.content
    assert b"specpact_releases{" not in response.content


def test_a_database_that_fails_while_checking_the_token_is_a_503(
    viewer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accounts_app.models import ApiToken

    issued = make_token(viewer, "viewer")

    def down(self: Any, key: str) -> None:
        raise DatabaseError("connection refused")

    monkeypatch.setattr(type(ApiToken.objects.get_queryset()), "for_key", down)
    response = _get(key=issued.key)
    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"


def test_a_bad_allowlist_fails_at_start_up_naming_the_setting() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "METRICS_ALLOWED_NETWORKS": "127.0.0.0/8,not-a-network"}
    argv = [sys.executable, "-c", "import specpact.settings"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "METRICS_ALLOWED_NETWORKS: 'not-a-network' is not an address or CIDR" in done.stderr
