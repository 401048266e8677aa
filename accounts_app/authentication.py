"""`Authorization: Token <prefix.secret>` for scripts and pipelines. `request.auth` is the
ApiToken, so views can ask it `allows_route(route)`. A view
that a caller cannot send headers to names where its JSON body carries the key
(`body_token_path`); a rollout-gate token is refused (403) by every view that does not
say `accepts_rollout_gate_tokens`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied
from rest_framework.request import Request

from accounts_app.models import ApiToken, TokenPurpose

# Writing last_used_at on every request would turn every read into a write; a minute of
# resolution is enough to tell a live pipeline from a forgotten token.
_LAST_USED_RESOLUTION = timedelta(minutes=1)


def token_from_header(request: Request) -> str | None:
    """The key of an `Authorization: Token <key>` header, None when the request has no
    such header (another scheme may take it); a malformed one is refused. Every token the
    API takes (users', workers', bootstrap) is read here."""
    parts = get_authorization_header(request).split()
    if not parts or parts[0].lower() != b"token":
        return None
    if len(parts) != 2:
        raise AuthenticationFailed("Invalid token header: use 'Authorization: Token <key>'.")
    try:
        return parts[1].decode("ascii")
    except UnicodeDecodeError:
        raise AuthenticationFailed("Invalid token.") from None


def _view(request: Request) -> Any:
    return (getattr(request, "parser_context", None) or {}).get("view")


def _token_from_body(request: Request) -> str | None:
    """The key at the view's `body_token_path` in a JSON body, for a caller that can send no
    header: Flagger's webhooks (releases_app.api.rollouts). Other views take none."""
    path = getattr(_view(request), "body_token_path", None)
    if not path:
        return None
    node: Any = request.data
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, str) and node else None


class ApiTokenAuthentication(BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        key = token_from_header(request)
        if key is None:
            key = _token_from_body(request)
        if key is None:
            return None
        return self.check_key(request, key)

    def check_key(self, request: Request, key: str) -> tuple[Any, ApiToken]:
        """The user and token of `key`, or AuthenticationFailed saying why not."""
        token = ApiToken.objects.for_key(key)
        if token is None:
            raise AuthenticationFailed("Invalid token.")
        if token.revoked_at is not None:
            raise AuthenticationFailed("This token has been revoked.")
        if token.is_expired:
            raise AuthenticationFailed("This token has expired.")
        if not token.user.is_active:
            raise AuthenticationFailed("This token's user is inactive.")
        if token.purpose == TokenPurpose.ROLLOUT_GATE and not getattr(
            _view(request), "accepts_rollout_gate_tokens", False
        ):
            # 403, not 401: the key is good, it is only not for this endpoint.
            raise PermissionDenied(
                "This is a rollout-gate token: it reads only releases/{id}/analysis, routes/{slug}/analysis "
                "and the flagger/ webhooks."
            )
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > _LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
