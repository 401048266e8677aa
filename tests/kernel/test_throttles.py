"""API throttles per token and per anonymous address, and the browser login's attempt limit
(more of it: tests/accounts/test_login_limit.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from tests.support.factories import PASSWORD, make_token
from tests.support.login import Clock
from tests.support.workers import register

pytestmark = pytest.mark.django_db

REDIS_URL = os.environ.get("SPECPACT_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _rates(settings: Any, **rates: str | None) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"token": "1000/min", "worker": "1000/min", "anon": "1000/min", **rates},
    }


def _assert_throttled(answer: Any) -> None:
    assert answer.status_code == 429, answer.content
    assert answer["Content-Type"].startswith("application/problem+json")
    assert 1 <= int(answer["Retry-After"]) <= 60


@pytest.fixture
def shared_cache(settings: Any) -> None:
    """The counts in Redis, as production keeps them (CACHE_URL), so every process sees them."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"throttle-test-{os.getpid()}",
        }
    }
    from django.core.cache import cache

    cache.clear()


def test_a_token_over_its_rate_gets_429_with_retry_after(
    settings: Any, viewer: Any, shared_cache: None
) -> None:
    _rates(settings, token="3/min")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(viewer, 'viewer').key}")
    assert [client.get("/api/v1/routes/").status_code for _ in range(3)] == [200, 200, 200]
    _assert_throttled(client.get("/api/v1/routes/"))
    # Another token of the same user has its own allowance.
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {make_token(viewer, 'viewer').key}")
    assert other.get("/api/v1/routes/").status_code == 200


def test_a_worker_has_its_own_rate_not_a_pipelines(settings: Any) -> None:
    _rates(settings, token="2/min", worker="4/min")
    worker = APIClient(HTTP_AUTHORIZATION=f"Token {register('w-rate').token}")
    beats = [worker.post("/api/v1/workers/heartbeat", {}, format="json").status_code for _ in range(5)]
    assert beats == [200, 200, 200, 200, 429]


def test_an_anonymous_address_over_its_rate_gets_429(settings: Any, shared_cache: None) -> None:
    _rates(settings, anon="2/min")
    client = APIClient()
    assert [client.get("/api/v1/contracts/schema.json").status_code for _ in range(2)] == [200, 200]
    _assert_throttled(client.get("/api/v1/contracts/schema.json"))
    # Wrong tokens count against the address too: guessing them is throttled, not only refused.
    client.credentials(HTTP_AUTHORIZATION="Token sp_guess.guess")
    _assert_throttled(client.get("/api/v1/routes/"))


def test_wrong_tokens_are_401_until_the_address_has_spent_its_rate(settings: Any) -> None:
    _rates(settings, anon="2/min")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token sp_guess.guess")
    assert [client.get("/api/v1/routes/").status_code for _ in range(2)] == [401, 401]
    _assert_throttled(client.get("/api/v1/routes/"))


def _try(client: Client, username: str, password: str) -> Any:
    return client.post("/login/", {"username": username, "password": password})


def test_the_login_form_holds_a_username_back_after_the_limit_and_audits_it(
    settings: Any, viewer: Any, shared_cache: None, monkeypatch: Any
) -> None:
    Clock(monkeypatch)  # held still: the first wait (1 s) lasts the whole test
    settings.LOGIN_MAX_FAILURES = settings.LOGIN_MAX_FAILURES_PER_ADDRESS = 3
    client = Client()
    assert [_try(client, viewer.username, "wrong").status_code for _ in range(2)] == [200, 200]
    tripped = _try(client, viewer.username, "wrong")
    assert tripped.status_code == 429
    assert 1 <= int(tripped["Retry-After"]) <= settings.LOGIN_DELAY_MAX_S
    assert b"Too many failed sign-ins" in tripped.content
    # Held back: from this address even the right password is refused until the wait ends.
    right = _try(Client(), viewer.username, PASSWORD)
    assert right.status_code == 429
    assert "_auth_user_id" not in right.client.session
    events = AuditEvent.objects.filter(action="login.locked_out")
    assert {e.object_id for e in events} == {viewer.username, "127.0.0.1"}
    assert all(e.after["failures"] == 3 for e in events)


def test_a_successful_sign_in_before_the_limit_resets_the_username_count(settings: Any, viewer: Any) -> None:
    settings.LOGIN_MAX_FAILURES = 3
    settings.LOGIN_LOCKOUT_S = 60
    client = Client()
    _try(client, viewer.username, "wrong")
    _try(client, viewer.username, "wrong")
    assert _try(client, viewer.username, PASSWORD).status_code == 302
    assert not AuditEvent.objects.filter(action="login.locked_out").exists()


def test_an_address_is_held_back_after_its_own_higher_limit_across_usernames(
    settings: Any, viewer: Any, monkeypatch: Any
) -> None:
    Clock(monkeypatch)
    settings.LOGIN_MAX_FAILURES = 100
    settings.LOGIN_MAX_FAILURES_PER_ADDRESS = 4
    client = Client()
    codes = [_try(client, f"guess-{i}", "wrong").status_code for i in range(4)]
    assert codes == [200, 200, 200, 429]
    assert _try(Client(), viewer.username, PASSWORD).status_code == 429  # same address
    # Another address (behind one trusted proxy) is not locked out.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    other = Client(HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert other.post("/login/", {"username": viewer.username, "password": PASSWORD}).status_code == 302
    assert list(AuditEvent.objects.filter(action="login.locked_out").values_list("object_id", flat=True)) == [
        "127.0.0.1"
    ]
