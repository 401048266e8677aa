"""API throttles (settings: REST_FRAMEWORK's DEFAULT_THROTTLE_CLASSES and _RATES).

A token (a pipeline's, a worker's) or a browser session is counted by who it is, an
anonymous caller by its address. The counts live in Django's cache: Redis when CACHE_URL
names it (docker-compose does), so every web process shares them. Over the rate: 429
problem+json with `Retry-After` (kernel/api/problems.py keeps the header)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle


class _SettingsRate:
    """DRF binds THROTTLE_RATES when its module loads; read them when asked, so a changed
    setting (a test's override) applies."""

    scope: str

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)


class TokenRateThrottle(_SettingsRate, SimpleRateThrottle):
    """Per API token; a session without a token counts as its user. A token object may
    name a rate of its own with a `throttle_scope` attribute (registered workers report
    progress and results at the pace of their runs: `worker`)."""

    scope = "token"

    def allow_request(self, request: Request, view: Any) -> bool:
        own_scope = getattr(request.auth, "throttle_scope", None)
        if isinstance(own_scope, str):
            self.scope = own_scope
            self.rate = self.get_rate()
            self.num_requests, self.duration = self.parse_rate(self.rate)
        return bool(super().allow_request(request, view))

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        auth = request.auth
        meta = getattr(auth, "_meta", None)
        if meta is not None and getattr(auth, "pk", None) is not None:
            ident = f"{meta.label_lower}:{auth.pk}"
        elif request.user is not None and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            return None  # anonymous: AnonymousRateThrottle counts it
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AnonymousRateThrottle(_SettingsRate, AnonRateThrottle):
    """Per client address (REST_FRAMEWORK NUM_PROXIES says how many proxies to trust)."""

    scope = "anon"


def refused_credentials_wait(request: Request, view: Any) -> float | None:
    """DRF checks throttles after authentication, so a request with a wrong token (a 401)
    would never be counted: the problem handler counts it here, against its address, and
    answers 429 once the anonymous rate is spent. The seconds to wait, or None."""
    throttle = AnonymousRateThrottle()
    if throttle.rate is None or throttle.allow_request(request, view):
        return None
    return throttle.wait() or 1.0
