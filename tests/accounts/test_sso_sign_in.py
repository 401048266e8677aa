"""The SSO pieces without a provider: ID token claims SpecPact checks beside
mozilla-django-oidc's, the sign-in service, and single sign-on being off by default."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.exceptions import SuspiciousOperation
from django.test import Client

from accounts_app.selectors import user_role
from accounts_app.services import sso_sign_in
from accounts_app.sso import SpecPactOIDCBackend, username_for
from audit_app.models import AuditEvent
from kernel.errors import Conflict, Forbidden

ISSUER = "https://idp.example.test/realms/ml"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = (
    KEY.public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)


@pytest.fixture
def backend(settings: Any) -> SpecPactOIDCBackend:
    settings.OIDC_ENABLED = True
    settings.OIDC_RP_CLIENT_ID = "specpact"
    settings.OIDC_RP_CLIENT_SECRET = "unused-here"
    settings.OIDC_OP_ISSUER = ISSUER
    settings.OIDC_OP_TOKEN_ENDPOINT = f"{ISSUER}/token"
    settings.OIDC_OP_USER_ENDPOINT = f"{ISSUER}/userinfo"
    settings.OIDC_RP_IDP_SIGN_KEY = PUBLIC_PEM  # instead of fetching a JWKS
    return SpecPactOIDCBackend()


def _token(key: Any = KEY, alg: str = "RS256", **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": "specpact", "sub": "u1", "nonce": "n1", "iat": now, "exp": now + 60}
    return jwt.encode({**body, **claims}, key, algorithm=alg)


def test_a_good_token_passes(backend: SpecPactOIDCBackend) -> None:
    assert backend.verify_token(_token(), nonce="n1")["sub"] == "u1"
    assert backend.verify_token(_token(aud=["other", "specpact"]), nonce="n1")["sub"] == "u1"


@pytest.mark.parametrize(
    ("token", "says"),
    [
        (lambda: _token(iss="https://evil.example.test"), "iss is not the configured issuer"),
        (lambda: _token(aud="another-client"), "aud does not name this client"),
        (lambda: _token(exp=int(time.time()) - 120), "ID token refused: Signature has expired"),
        (lambda: _token(nonce="replayed"), "Nonce verification failed"),
        (lambda: _token(key=rsa.generate_private_key(65537, 2048)), "JWS token verification failed"),
        (lambda: _token(key="a-shared-secret-of-32-bytes-or-more!", alg="HS256"), "does not match"),
    ],
)
def test_it_refuses_a_token(backend: SpecPactOIDCBackend, token: Any, says: str) -> None:
    with pytest.raises(SuspiciousOperation) as caught:
        backend.verify_token(token(), nonce="n1")
    assert says in str(caught.value)


def test_usernames_are_the_subject_with_a_prefix() -> None:
    assert username_for("42") == "oidc-42"
    odd = username_for("CN=Jo Bloggs,OU=ml")
    assert odd.startswith("oidc-") and len(odd) == 45 and odd == username_for("CN=Jo Bloggs,OU=ml")


@pytest.mark.django_db
def test_sign_in_service_creates_then_updates(admin: Any) -> None:
    kwargs = {"email": "jo@example.test", "issuer": ISSUER}
    user = sso_sign_in(username="oidc-7", groups=["chat-team"], role="operator", **kwargs)
    assert user_role(user) == "operator" and not user.has_usable_password()
    again = sso_sign_in(username="oidc-7", groups=[], role="viewer", **kwargs)
    assert again.pk == user.pk
    again.refresh_from_db()
    assert user_role(again) == "viewer"
    actions = list(
        AuditEvent.objects.filter(object_id="oidc-7").order_by("pk").values_list("action", flat=True)
    )
    assert actions == ["user.created", "login.sso", "user.role_changed", "login.sso"]


@pytest.mark.django_db
def test_it_wont_sign_into_a_local_account(operator: Any) -> None:
    with pytest.raises(Conflict):
        sso_sign_in(username=operator.username, email="", groups=[], role="admin", issuer=ISSUER)
    assert user_role(operator) == "operator"


@pytest.mark.django_db
def test_it_is_off_by_default() -> None:
    client = Client()
    assert b"Sign in with" not in client.get("/login/").content
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/?code=x&state=y").status_code == 404


@pytest.mark.django_db
def test_a_deactivated_user_stays_out_and_unchanged() -> None:
    user = sso_sign_in(username="oidc-9", email="", groups=[], role="viewer", issuer=ISSUER)
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    with pytest.raises(Forbidden):
        sso_sign_in(username="oidc-9", email="", groups=["admins"], role="admin", issuer=ISSUER)
    assert AuditEvent.objects.filter(object_id="oidc-9", action="login.sso").count() == 1
    assert not AuditEvent.objects.filter(object_id="oidc-9", action="user.role_changed").exists()


@pytest.mark.django_db
def test_a_local_user_logs_out_locally_with_sso_on(backend: SpecPactOIDCBackend, viewer: Any) -> None:
    client = Client()
    client.force_login(viewer)
    assert client.get("/logout/").status_code == 405  # still POST only
    out = client.post("/logout/")
    assert (out.status_code, out["Location"]) == (302, "http://testserver/login/")
    assert client.get("/tokens/").status_code == 302
