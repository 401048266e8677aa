"""Sign-in through an OpenID Connect provider (docs/sso.md), on mozilla-django-oidc 5.0.2.

What mozilla-django-oidc checks on the ID token (mozilla/mozilla-django-oidc 5.0.2,
mozilla_django_oidc/auth.py `verify_token`, `_verify_jws`): the header's alg equals
OIDC_RP_SIGN_ALGO (RS256 here), the RS256 signature against the provider's JWKS key of
the token's `kid`, `exp` (PyJWT's `jwt.decode` default), and the nonce it sent. It decodes
with `verify_aud: False` and never looks at `iss`, so this backend adds both; it also turns
PyJWT's other refusals (an expired token) into SuspiciousOperation, which Django answers
with 400, where they would otherwise be a 500.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import urlencode

import jwt
from django.conf import settings
from django.core import checks
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest
from django.urls import reverse
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts_app.services import sso_sign_in
from accounts_app.sso_mapping import MappingError, groups_from_claims, parse_mapping
from kernel.errors import DomainError

USERNAME_PREFIX = "oidc-"
_USERNAME_OK = re.compile(r"[\w.@+-]{1,140}")  # Django's username validator, within 150 chars


def username_for(sub: str) -> str:
    """The local username of the provider's subject: stable (`sub` never changes for a
    user, unlike an e-mail or a display name), and never a local account's (they don't
    start with the prefix unless an admin named one so; such a one is refused)."""
    if _USERNAME_OK.fullmatch(sub):
        return USERNAME_PREFIX + sub
    return USERNAME_PREFIX + hashlib.sha256(sub.encode()).hexdigest()[:40]


class SpecPactOIDCBackend(OIDCAuthenticationBackend):
    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        try:
            payload: dict[str, Any] = super().verify_token(token, **kwargs)
        except jwt.InvalidTokenError as exc:
            raise SuspiciousOperation(f"ID token refused: {exc}") from None
        if payload.get("iss") != settings.OIDC_OP_ISSUER:
            raise SuspiciousOperation("ID token refused: iss is not the configured issuer")
        audience = payload.get("aud")
        audiences = [audience] if isinstance(audience, str) else list(audience or [])
        if settings.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("ID token refused: aud does not name this client")
        return payload

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        # A user is their `sub`; no e-mail is required.
        return bool(claims.get("sub"))

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> Any:
        claims = self.get_userinfo(access_token, id_token, payload)
        if not self.verify_claims(claims) or claims.get("sub") != payload.get("sub"):
            # OpenID Connect Core 1.0 §5.3.2: userinfo's sub must equal the ID token's.
            raise SuspiciousOperation("userinfo does not belong to the ID token's subject")
        mapping = parse_mapping(settings.OIDC_ROLE_MAPPING)
        groups = groups_from_claims(claims, settings.OIDC_GROUPS_CLAIM) or groups_from_claims(
            payload, settings.OIDC_GROUPS_CLAIM
        )
        access = mapping.access_for(groups)
        try:
            return sso_sign_in(
                username=username_for(str(claims["sub"])),
                email=str(claims.get("email") or ""),
                groups=groups,
                role=access.role,
                routes=list(access.routes),
                issuer=settings.OIDC_OP_ISSUER,
            )
        except DomainError as exc:
            # authenticate() logs it and the callback sends the browser to the failure page.
            raise SuspiciousOperation(str(exc)) from None


def provider_logout_url(request: HttpRequest) -> str:
    """Where logout sends the browser (mozilla-django-oidc's OIDC_OP_LOGOUT_URL_METHOD):
    the provider's end_session endpoint (OpenID Connect RP-Initiated Logout 1.0) when one
    is configured and the session came through the provider, else the sign-in page."""
    back = request.build_absolute_uri(reverse(settings.LOGOUT_REDIRECT_URL))
    id_token = request.session.get("oidc_id_token")
    if not settings.OIDC_OP_END_SESSION_ENDPOINT or not id_token:
        return back
    query = urlencode(
        {
            "id_token_hint": id_token,
            "post_logout_redirect_uri": back,
            "client_id": settings.OIDC_RP_CLIENT_ID,
        }
    )
    return f"{settings.OIDC_OP_END_SESSION_ENDPOINT}?{query}"


@checks.register(checks.Tags.security)
def check_role_mapping(**_: Any) -> list[checks.CheckMessage]:
    """A malformed OIDC_ROLE_MAPPING stops `manage.py check` (and so start-up)."""
    try:
        parse_mapping(settings.OIDC_ROLE_MAPPING)
    except MappingError as exc:
        return [checks.Error(str(exc), id="accounts.E001")]
    return []
