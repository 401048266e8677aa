"""The benchmark floor (kernel/floor.py): only reachable with SPECPACT_BENCH_FLOOR on, and
then only for an authenticated caller; `check --deploy` warns while it is on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core import checks
from django.test import Client
from rest_framework.test import APIClient

from tests.support.factories import make_token

pytestmark = pytest.mark.django_db

PAGE = "/bench/floor/"
API = "/api/v1/bench/floor"


def _token_client(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(user, 'viewer').key}")
    return client


def test_it_is_off_with_no_environment() -> None:
    # The setting's reader and its default (specpact/settings.py): off unless asked for.
    source = (Path(__file__).resolve().parents[2] / "specpact" / "settings.py").read_text()
    assert 'SPECPACT_BENCH_FLOOR = env_bool("SPECPACT_BENCH_FLOOR", False)' in source


def test_off_both_answer_404_even_to_a_signed_in_user(settings: Any, viewer: Any) -> None:
    settings.SPECPACT_BENCH_FLOOR = False
    page = Client()
    page.force_login(viewer)
    assert page.get(PAGE).status_code == 404
    answer = _token_client(viewer).get(API)
    assert answer.status_code == 404
    assert answer["Content-Type"].startswith("application/problem+json")


def test_off_an_anonymous_caller_gets_404_not_a_login_redirect(settings: Any) -> None:
    settings.SPECPACT_BENCH_FLOOR = False
    assert Client().get(PAGE).status_code == 404
    assert APIClient().get(API).status_code == 404


def test_on_the_page_needs_a_session(settings: Any, viewer: Any) -> None:
    settings.SPECPACT_BENCH_FLOOR = True
    anonymous = Client().get(PAGE)
    assert anonymous.status_code == 302
    assert "/login/" in anonymous["Location"]
    page = Client()
    page.force_login(viewer)
    answer = page.get(PAGE)
    assert answer.status_code == 200
    assert answer.content == b"floor\n"


def test_on_the_api_needs_a_token_or_session(settings: Any, viewer: Any) -> None:
    settings.SPECPACT_BENCH_FLOOR = True
    assert APIClient().get(API).status_code == 401
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert bad.get(API).status_code == 401
    answer = _token_client(viewer).get(API)
    assert answer.status_code == 200
    assert answer.json() == {"floor": True}


def test_it_is_not_in_the_schema(settings: Any, viewer: Any) -> None:
    settings.SPECPACT_BENCH_FLOOR = True
    client = APIClient()
    client.force_authenticate(viewer)
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert "bench/floor" not in schema.content.decode()


def test_check_deploy_warns_only_while_it_is_on(settings: Any) -> None:
    settings.SPECPACT_BENCH_FLOOR = False
    assert "specpact.W001" not in {m.id for m in checks.run_checks(include_deployment_checks=True)}
    settings.SPECPACT_BENCH_FLOOR = True
    assert "specpact.W001" in {m.id for m in checks.run_checks(include_deployment_checks=True)}
    # Not a plain `check`: a developer may run the benchmark with it on.
    assert "specpact.W001" not in {m.id for m in checks.run_checks(include_deployment_checks=False)}
