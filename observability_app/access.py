"""Who may read `/metrics`: a caller whose address is in METRICS_ALLOWED_NETWORKS
(loopback only by default: a Prometheus beside the control plane), or one that sends an
API token (`Authorization: Token <key>`, the API's own tokens and their one reader)
of any role that is not scoped to routes. The metrics count every route's releases,
endpoints and alerts, so a token limited to some routes may not read them."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.throttling import BaseThrottle

from accounts_app.authentication import ApiTokenAuthentication, token_from_header
from accounts_app.permissions import has_role, routes_in_scope
from accounts_app.roles import Role
from kernel.outbound import IPNetwork, parse_networks


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    detail: str


@cache
def _allowed(text: str) -> tuple[IPNetwork, ...]:
    return parse_networks(text)


def _client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or X-Forwarded-For read through API_NUM_PROXIES trusted proxies: the
    address the API's throttles and the sign-in limiter key on (BaseThrottle.get_ident)."""
    return str(BaseThrottle().get_ident(request)).strip()  # type: ignore[arg-type]


def in_allowlist(request: HttpRequest) -> bool:
    try:
        address = ipaddress.ip_address(_client_address(request).split("%")[0])
    except ValueError:
        return False
    return any(address in network for network in _allowed(settings.METRICS_ALLOWED_NETWORKS or ""))


def refusal(request: HttpRequest) -> Refusal | None:
    """None when the request may read the metrics, else why not. May read the database
    (the token); its errors are the caller's to answer."""
    if token_from_header(request) is None:  # type: ignore[arg-type]
        if in_allowlist(request):
            return None
        return Refusal(
            401,
            "not_authenticated",
            "Send an API token (Authorization: Token <key>) not scoped to routes, or scrape from an"
            " address in METRICS_ALLOWED_NETWORKS.",
        )
    try:
        found = ApiTokenAuthentication().authenticate(request)  # type: ignore[arg-type]
    except AuthenticationFailed as exc:
        return Refusal(401, "authentication_failed", str(exc.detail))
    assert found is not None  # a Token header was sent, so it was read
    user, token = found
    request.user = user
    request.auth = token  # type: ignore[attr-defined]
    if not has_role(request, Role.VIEWER):
        return Refusal(403, "permission_denied", "This token's role may not read the metrics.")
    if routes_in_scope(request) is not None:  # the token's scope, or its user's
        return Refusal(
            403,
            "permission_denied",
            "This token is scoped to routes; the metrics cover every route, so they need a token not scoped"
            " to routes.",
        )
    return None
