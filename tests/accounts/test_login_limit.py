"""The sign-in limit (accounts_app/login_limit.py): names keyed as Django compares them,
counts per name and address, waits that grow and are capped, never a lockout an attacker
can hold a user in. The test settings' cache; the clock held still (tests/support/login.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from audit_app.models import AuditEvent
from tests.support.factories import PASSWORD, make_user
from tests.support.login import Clock, sign_in

pytestmark = pytest.mark.django_db

ATTACKER = "198.51.100.7"
USER = "203.0.113.9"
# "pat" in fullwidth letters (U+FF50 U+FF41 U+FF54), and partly fullwidth spellings.
FULLWIDTH = "\uff50\uff41\uff54"
PARTLY = ["p\uff41t", " \uff50at ", "\uff50\uff41t", "pa\uff54"]


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """Dozens of sign-ins a test, each checking a password: the limit is what is under test,
    not the hasher (PBKDF2 would cost about 0.2 s of CPU a check)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def pat(db: None) -> Any:
    return make_user("pat", "viewer")


@pytest.fixture
def clock(monkeypatch: Any) -> Clock:
    return Clock(monkeypatch)


@pytest.fixture
def behind_proxy(settings: Any) -> None:
    """docker-compose's one reverse proxy in front (API_NUM_PROXIES=1)."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}


def _from(address: str) -> Client:
    return Client(HTTP_X_FORWARDED_FOR=address)


def test_a_fullwidth_spelling_signs_in_as_the_same_user(pat: Any) -> None:
    answer = sign_in(Client(), FULLWIDTH, PASSWORD)
    assert answer.status_code == 302
    assert answer.client.session["_auth_user_id"] == str(pat.pk)


def test_fullwidth_and_partly_fullwidth_spellings_count_against_the_same_name(
    settings: Any, pat: Any, clock: Clock
) -> None:
    client = Client()
    spellings = ["pat", FULLWIDTH, *PARTLY[:3]]
    codes = [sign_in(client, name, "wrong").status_code for name in spellings]
    assert codes == [200, 200, 200, 200, 429]
    # Every spelling of the name now waits from this address, the right password too.
    for name in ["pat", FULLWIDTH, PARTLY[3]]:
        held = sign_in(Client(), name, PASSWORD)
        assert held.status_code == 429
        assert "_auth_user_id" not in held.client.session
    events = AuditEvent.objects.filter(action="login.locked_out", after__locked_by="name_and_address")
    assert [e.object_id for e in events] == ["pat"]


def test_a_user_held_back_from_one_address_signs_in_from_another(
    settings: Any, pat: Any, clock: Clock, behind_proxy: None
) -> None:
    attacker = _from(ATTACKER)
    codes = [sign_in(attacker, FULLWIDTH, "wrong").status_code for _ in range(5)]
    assert codes[-1] == 429
    assert sign_in(_from(ATTACKER), "pat", PASSWORD).status_code == 429
    assert sign_in(_from(USER), "pat", PASSWORD).status_code == 302


def test_an_attackers_failures_from_one_address_never_stop_the_user_elsewhere(
    settings: Any, pat: Any, clock: Clock, behind_proxy: None
) -> None:
    settings.LOGIN_MAX_FAILURES_PER_ADDRESS = 7
    settings.LOGIN_MAX_FAILURES_PER_NAME = 6
    attacker = _from(ATTACKER)
    for _ in range(10):  # past the name-and-address, address and name allowances, waiting each out
        answer = sign_in(attacker, "pat", "wrong")
        clock.advance(int(answer.get("Retry-After", 0)))
    assert sign_in(attacker, "pat", "wrong").status_code == 429
    events = AuditEvent.objects.filter(action="login.locked_out")
    kinds = set(events.values_list("after__locked_by", flat=True))
    assert kinds == {"name_and_address", "address", "name"}
    assert sign_in(_from(USER), "pat", PASSWORD).status_code == 302


def test_the_names_ceiling_holds_back_an_address_that_failed_for_it_but_only_briefly(
    settings: Any, pat: Any, clock: Clock, behind_proxy: None
) -> None:
    settings.LOGIN_MAX_FAILURES_PER_NAME = 4
    settings.LOGIN_DELAY_MAX_S = 8
    for i in range(6):  # a botnet: each address tries twice
        for _ in range(2):
            sign_in(_from(f"198.51.100.{i + 10}"), "pat", "wrong")
    user = _from(USER)
    mistyped = sign_in(user, "pat", "wrong")  # the user's own first failure: now the ceiling holds
    assert mistyped.status_code == 429
    assert 1 <= int(mistyped["Retry-After"]) <= 8
    assert sign_in(user, "pat", PASSWORD).status_code == 429
    clock.advance(8)
    assert sign_in(user, "pat", PASSWORD).status_code == 302


def test_behind_one_trusted_proxy_each_forwarded_client_is_counted_alone(
    settings: Any, pat: Any, clock: Clock, behind_proxy: None
) -> None:
    codes = [sign_in(_from(ATTACKER), "pat", "wrong").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    # Another client behind the same proxy has its own count.
    assert sign_in(_from(USER), "pat", "wrong").status_code == 200
    # An address the client wrote before the proxy's own is not trusted: still the attacker.
    spoofed = _from(f"10.9.9.9, {ATTACKER}")
    assert sign_in(spoofed, "pat", PASSWORD).status_code == 429


def test_the_wait_doubles_per_failure_and_is_capped(settings: Any, pat: Any, clock: Clock) -> None:
    settings.LOGIN_MAX_FAILURES = 2
    settings.LOGIN_DELAY_MAX_S = 8
    client = Client()
    assert sign_in(client, "pat", "wrong").status_code == 200
    waits = []
    for _ in range(6):
        answer = sign_in(client, "pat", "wrong")
        assert answer.status_code == 429
        waits.append(int(answer["Retry-After"]))
        clock.advance(waits[-1])
    assert waits == [1, 2, 4, 8, 8, 8]


def test_a_try_while_waiting_is_refused_and_extends_nothing(settings: Any, pat: Any, clock: Clock) -> None:
    settings.LOGIN_MAX_FAILURES = 1
    client = Client()
    assert sign_in(client, "pat", "wrong").status_code == 429  # waits 1 s
    clock.advance(1)
    assert int(sign_in(client, "pat", "wrong")["Retry-After"]) == 2
    clock.advance(1)
    refused = sign_in(client, "pat", PASSWORD)
    assert (refused.status_code, refused["Retry-After"]) == (429, "1")
    clock.advance(1)
    assert sign_in(client, "pat", PASSWORD).status_code == 302


def test_a_successful_sign_in_resets_that_name_and_address(settings: Any, pat: Any, clock: Clock) -> None:
    client = Client()
    assert [sign_in(client, "pat", "wrong").status_code for _ in range(5)][-1] == 429
    clock.advance(1)
    assert sign_in(Client(), FULLWIDTH, PASSWORD).status_code == 302
    # Counted from nothing again: four free failures, the fifth waits 1 s (not 2).
    codes = [sign_in(Client(), "pat", "wrong").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 200]
    assert sign_in(Client(), "pat", "wrong")["Retry-After"] == "1"
