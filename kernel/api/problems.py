"""RFC 9457 problem+json for every API error: DRF's own exceptions, Django's, and the
domain's. Field errors come as a list of {path, message}."""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from kernel.context import current_request_id
from kernel.errors import DomainError, FieldError

log = logging.getLogger("specpact.api")

PROBLEM_CONTENT_TYPE = "application/problem+json"
# A database that is restarting or unreachable: the request had no effect (its transaction
# died with the connection), so the client is told to send it again rather than that it
# failed. A worker's result upload answered 500 here was dropped as refused (chaos step).
DATABASE_RETRY_AFTER_S = 5
_TITLES = {
    400: "Invalid request",
    401: "Not authenticated",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    412: "Precondition failed",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    428: "Precondition required",
    429: "Too many requests",
    503: "Service unavailable",
}


def _problem_body(
    status_code: int,
    detail: str,
    code: str,
    errors: list[FieldError] | None,
    extensions: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": f"https://specpact.dev/problems/{code}",
        "title": _TITLES.get(status_code, "Error"),
        "status": status_code,
        "detail": detail,
        "code": code,
    }
    if errors:
        body["errors"] = [e.as_dict() for e in errors]
    request_id = current_request_id()
    if request_id:
        body["request_id"] = request_id
    for key, value in (extensions or {}).items():
        body.setdefault(key, value)  # an extension never replaces a standard member
    return body


def problem_http_response(
    status_code: int,
    detail: str,
    *,
    code: str = "error",
    errors: list[FieldError] | None = None,
    request: Any = None,
) -> HttpResponse:
    """The same problem as a plain Django response, for middleware and error handlers that
    answer before (or outside) DRF."""
    body = _problem_body(status_code, detail, code, errors)
    return HttpResponse(json.dumps(body), status=status_code, content_type=PROBLEM_CONTENT_TYPE)


def too_large_problem(limit: int, setting: str, *, what: str = "The request body") -> DomainError:
    """Every "over a limit" answer: 413, naming the limit and the setting that holds it."""
    return DomainError(
        f"{what} is larger than the limit of {limit} bytes ({setting}).",
        status=413,
        code="request_too_large",
        errors=[FieldError("body", f"at most {limit} bytes ({setting})")],
    )


def body_too_big_problem() -> DomainError:
    """Django's own RequestDataTooBig: the global DATA_UPLOAD_MAX_MEMORY_SIZE."""
    return too_large_problem(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, "DATA_UPLOAD_MAX_MEMORY_SIZE")


def problem_response(
    status_code: int,
    detail: str,
    *,
    code: str = "error",
    errors: list[FieldError] | None = None,
    headers: dict[str, str] | None = None,
    extensions: dict[str, Any] | None = None,
) -> Response:
    body = _problem_body(status_code, detail, code, errors, extensions)
    response = Response(body, status=status_code, headers=headers)
    response.content_type = PROBLEM_CONTENT_TYPE
    return response


def _flatten(detail: Any, prefix: str = "") -> list[FieldError]:
    """DRF's nested error dicts/lists → [{path: "a.b[0]", message}]."""
    if isinstance(detail, dict):
        out: list[FieldError] = []
        for key, value in detail.items():
            path = key if not prefix else f"{prefix}.{key}"
            if key == "non_field_errors":
                path = prefix
            out.extend(_flatten(value, path))
        return out
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return [FieldError(prefix, str(item)) for item in detail]
        out = []
        for index, item in enumerate(detail):
            out.extend(_flatten(item, f"{prefix}[{index}]"))
        return out
    return [FieldError(prefix, str(detail))]


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    request = context.get("request")

    if isinstance(exc, RequestDataTooBig):
        exc = body_too_big_problem()
    elif isinstance(exc, TooManyFieldsSent):
        exc = DomainError(
            "The form has more fields than DATA_UPLOAD_MAX_NUMBER_FIELDS allows.", code="too_many_fields"
        )
    if isinstance(exc, (OperationalError, InterfaceError)):
        log.warning("database unavailable; answered 503: %s", exc, exc_info=exc)
        set_rollback()
        return problem_response(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            "The database is unavailable for a moment; nothing was changed. Send the request again.",
            code="database_unavailable",
            headers={"Retry-After": str(DATABASE_RETRY_AFTER_S)},
        )
    if isinstance(exc, DomainError):
        return problem_response(
            exc.status, exc.detail, code=exc.code, errors=exc.errors, extensions=exc.extensions
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    if (
        isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed))
        and request is not None
    ):
        from kernel.api.throttles import refused_credentials_wait  # DRF's settings load this module

        wait = refused_credentials_wait(request, context.get("view"))
        if wait is not None:
            exc = exceptions.Throttled(wait)
    response = exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: let Django log it and answer 500
    assert isinstance(exc, exceptions.APIException)
    headers = {k: v for k, v in response.headers.items() if k in ("WWW-Authenticate", "Retry-After", "Allow")}
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return _unsupported_media_type(exc, request, headers)
    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail)
        return problem_response(
            status.HTTP_400_BAD_REQUEST,
            "The request is invalid; see errors.",
            code="invalid",
            errors=errors,
            headers=headers,
        )
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    return problem_response(
        response.status_code,
        str(detail),
        code=str(getattr(exc, "default_code", "error")),
        headers=headers,
    )


def _unsupported_media_type(
    exc: exceptions.UnsupportedMediaType, request: Any, headers: dict[str, str]
) -> Response:
    """A body this endpoint has no parser for: what it takes, and the Content-Type it got."""
    taken = [p.media_type for p in getattr(request, "parsers", None) or []] or ["application/json"]
    got = (request.content_type if request is not None else "") or ""
    detail = f"This endpoint takes {' or '.join(taken)}; the request's Content-Type is {got!r}."
    return problem_response(
        exc.status_code,
        detail,
        code="unsupported_media_type",
        errors=[FieldError("Content-Type", f"{got!r} is not {' or '.join(taken)}")],
        headers=headers,
    )
