"""Request ids: taken from X-Request-ID when a proxy or pipeline sends one, else made here.
Audit events record it, so an event can be traced to the request that caused it."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _SAFE_ID.match(given) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response


def request_id_of(request: object) -> str:
    """The id RequestIdMiddleware gave this request (a DRF Request proxies to it)."""
    return str(getattr(request, "request_id", ""))
