"""Single sign-on against a real OpenID Connect provider process (django-oauth-toolkit,
tests/support/oidc_provider/): the authorization-code flow end to end, with PKCE, the
RS256 ID token checked against the provider's JWKS."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from accounts_app.selectors import user_role, user_route_slugs
from audit_app.models import AuditEvent
from tests.support.factories import example, make_version
from tests.support.oidc import OidcProvider

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

MAPPING = (
    '{"groups": {"ml-platform-admins": {"role": "admin"}, "chat-team": {"role": "operator"},'
    ' "summaries-team": {"role": "operator", "routes": ["contract-summaries"]}}}'
)
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(scope="module")
def provider_process(tmp_path_factory: pytest.TempPathFactory, live_server: Any) -> Iterator[OidcProvider]:
    """One provider process for the module (its migrate, init and gunicorn start cost
    seconds): each test sets the groups of the user it signs in as, and signs in with a
    client of its own, so no test sees another's provider session."""
    with OidcProvider(tmp_path_factory.mktemp("provider"), rp_base_url=live_server.url) as running:
        yield running


@pytest.fixture
def provider(
    provider_process: OidcProvider, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OidcProvider]:
    # The live server's request threads close their connections when done (persistent
    # ones would outlive the test and block dropping the test database).
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    for name, value in provider_process.rp_settings().items():
        setattr(settings, name, value)
    settings.OIDC_ROLE_MAPPING = MAPPING
    yield provider_process
    provider_process.tamper(False)  # signing honestly again, whatever the test did


def _sign_in(rp: str, provider: OidcProvider, username: str) -> tuple[httpx.Client, httpx.Response]:
    """Start at SpecPact's "Sign in with …" link, sign in at the provider, come back."""
    client = httpx.Client(follow_redirects=True, timeout=30)
    page = client.get(f"{rp}/oidc/authenticate/")
    assert page.url.path == "/accounts/login/", page.text[:500]  # the provider's sign-in form
    form = {
        "csrfmiddlewaretoken": _CSRF.search(page.text).group(1),  # type: ignore[union-attr]
        "username": username,
        "password": provider.password,
        "next": page.url.params["next"],
    }
    return client, client.post(str(page.url), data=form)


def _sso_user(username: str) -> Any:
    provider_pk = {"alice": 1, "bob": 2}[username]  # created in that order by admin_cli init
    return get_user_model().objects.get(username=f"oidc-{provider_pk}")


def test_sign_in_creates_the_user_with_the_mapped_role_and_re_reads_it(
    provider: OidcProvider, live_server: Any
) -> None:
    login_page = httpx.get(f"{live_server.url}/login/")
    assert "Sign in with Test Provider" in login_page.text

    provider.admin("groups", "alice", "chat-team", "unrelated")
    _, back = _sign_in(live_server.url, provider, "alice")
    assert back.status_code == 200 and back.url.host == "localhost", back.text[:500]
    user = _sso_user("alice")
    assert (user.email, user.has_usable_password()) == ("alice@example.test", False)
    assert user_role(user) == "operator"
    created = AuditEvent.objects.get(action="user.created", object_id=user.username)
    assert created.after["source"] == "oidc" and created.after["role"] == "operator"
    sign_in = AuditEvent.objects.get(action="login.sso", object_id=user.username)
    assert sign_in.after["groups"] == ["chat-team", "unrelated"] and sign_in.after["created"] is True

    provider.admin("groups", "alice", "ml-platform-admins")
    _sign_in(live_server.url, provider, "alice")
    assert user_role(_sso_user("alice")) == "admin"

    provider.admin("groups", "alice")  # taken out of every group
    _sign_in(live_server.url, provider, "alice")
    assert user_role(_sso_user("alice")) == "viewer"
    changes = AuditEvent.objects.filter(action="user.role_changed", object_id=user.username).order_by("pk")
    moves = [(e.before["role"], e.after["role"]) for e in changes]
    assert moves == [("operator", "admin"), ("admin", "viewer")]
    assert get_user_model().objects.filter(username__startswith="oidc-").count() == 1


def test_a_scoped_groups_user_sees_its_routes_only_until_the_group_changes_at_the_next_sign_in(
    provider: OidcProvider, live_server: Any
) -> None:
    make_version("contract-summaries", example())
    make_version("support-chat", example("support-chat-eagle3"))

    provider.admin("groups", "bob", "summaries-team")
    client, back = _sign_in(live_server.url, provider, "bob")
    assert back.status_code == 200 and back.url.host == "localhost", back.text[:500]
    user = _sso_user("bob")
    assert (user_role(user), user_route_slugs(user)) == ("operator", ["contract-summaries"])
    overview = client.get(f"{live_server.url}/").text
    assert "/routes/contract-summaries/" in overview and "support-chat" not in overview
    assert client.get(f"{live_server.url}/routes/support-chat/").status_code == 404
    assert client.get(f"{live_server.url}/routes/contract-summaries/").status_code == 200
    listed = client.get(f"{live_server.url}/api/v1/routes/").json()
    assert [r["slug"] for r in listed["results"]] == ["contract-summaries"]
    created = AuditEvent.objects.get(action="user.created", object_id=user.username)
    assert created.after["routes"] == ["contract-summaries"]
    client.close()

    # Moved to an unscoped group at the provider: every route, from the next sign-in.
    provider.admin("groups", "bob", "chat-team")
    client, _ = _sign_in(live_server.url, provider, "bob")
    assert user_route_slugs(_sso_user("bob")) is None
    assert client.get(f"{live_server.url}/routes/support-chat/").status_code == 200
    client.close()

    # And back: limited again at the next sign-in.
    provider.admin("groups", "bob", "summaries-team")
    client, _ = _sign_in(live_server.url, provider, "bob")
    assert user_route_slugs(_sso_user("bob")) == ["contract-summaries"]
    assert client.get(f"{live_server.url}/routes/support-chat/").status_code == 404
    client.close()
    moves = AuditEvent.objects.filter(action="user.routes_changed", object_id=user.username).order_by("pk")
    assert [(e.before["routes"], e.after["routes"]) for e in moves] == [
        (["contract-summaries"], []),
        ([], ["contract-summaries"]),
    ]
    assert AuditEvent.objects.filter(action="login.sso", object_id=user.username).count() == 3


def test_a_tampered_id_token_is_refused(provider: OidcProvider, live_server: Any) -> None:
    provider.admin("groups", "bob", "ml-platform-admins")
    provider.tamper(True)
    client, back = _sign_in(live_server.url, provider, "bob")
    assert back.status_code == 400 and back.url.path == "/oidc/callback/"
    assert "Sign-in through Test Provider was refused: JWS token verification failed." in back.text
    assert not get_user_model().objects.filter(username__startswith="oidc-").exists()
    assert client.get(f"{live_server.url}/tokens/").url.path == "/login/"  # not signed in

    provider.tamper(False)  # the same flow with the token as signed goes through
    _, back = _sign_in(live_server.url, provider, "bob")
    assert back.status_code == 200 and user_role(_sso_user("bob")) == "admin"


def test_logout_ends_the_session_here_and_at_the_provider(provider: OidcProvider, live_server: Any) -> None:
    client, _ = _sign_in(live_server.url, provider, "alice")
    tokens = client.get(f"{live_server.url}/tokens/")
    assert tokens.url.path == "/tokens/"
    out = client.post(
        f"{live_server.url}/logout/",
        data={"csrfmiddlewaretoken": _CSRF.search(tokens.text).group(1)},  # type: ignore[union-attr]
        follow_redirects=False,
    )
    assert out.status_code == 302 and out.headers["location"].startswith(provider.endpoint("logout/?"))
    assert "id_token_hint=" in out.headers["location"]
    ended = client.get(out.headers["location"])  # the provider ends its session, sends us back
    assert ended.url.host == "localhost" and ended.url.path == "/login/"
    assert client.get(f"{live_server.url}/tokens/").url.path == "/login/"
    # The provider's session is gone too: signing in again asks for the password.
    again = client.get(f"{live_server.url}/oidc/authenticate/")
    assert again.url.path == "/accounts/login/"
