"""Request ids: taken from X-Request-ID when a proxy or pipeline sends one, else made here.
Audit events record it, so an event can be traced to the request that caused it.
And the Content-Security-Policy of every HTML page."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from kernel.context import request_context, safe_request_id


class RequestIdMiddleware:
    """The request's id (the caller's X-Request-ID when acceptable) for the whole request:
    in the request context (kernel/context.py) that the audit trail reads, on the request
    object, and in the response's X-Request-ID."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = safe_request_id(request.headers.get("X-Request-ID", ""))
        request.request_id = request_id  # type: ignore[attr-defined]
        with request_context(request_id):
            response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response


class ContentSecurityPolicyMiddleware:
    """Sets settings.CSP_POLICY on every HTML response (Django 5.2 has no CSP of its own):
    scripts and styles from this server only, no plugins, no <base>, no framing. Paths
    under settings.CSP_LOOSE_STYLE_PATHS (the API's own HTML: Swagger UI and DRF's
    browsable API, whose templates we don't own and which use inline styles) also allow
    inline styles; their scripts still come from this server only. A view's own
    Content-Security-Policy header is left alone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.header = (
            "Content-Security-Policy-Report-Only" if settings.CSP_REPORT_ONLY else "Content-Security-Policy"
        )
        self.strict = _policy(settings.CSP_POLICY)
        loose = {**settings.CSP_POLICY, "style-src": [*settings.CSP_POLICY["style-src"], "'unsafe-inline'"]}
        if "style-src-attr" in loose:  # a hash there would make browsers ignore 'unsafe-inline'
            loose["style-src-attr"] = ["'unsafe-inline'"]
        self.loose = _policy(loose)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.header in response or not response.get("Content-Type", "").startswith("text/html"):
            return response
        if settings.DEBUG and response.status_code >= 400:
            return response  # Django's technical 404/500 pages (DEBUG only) are inline styles and scripts
        loose = request.path.startswith(tuple(settings.CSP_LOOSE_STYLE_PATHS))
        response[self.header] = self.loose if loose else self.strict
        return response


def _policy(directives: dict[str, list[str]]) -> str:
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())
