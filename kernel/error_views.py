"""Django's error handlers (handler400/403/404/500): problem+json under `/api/`, the site's
own error pages everywhere else. They answer what no DRF view did: unknown API paths,
requests refused before a view ran, and any exception that escaped one."""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.views import defaults

from kernel.api.guard import is_api
from kernel.api.problems import body_too_big_problem, problem_http_response


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        too_big = body_too_big_problem()
        return problem_http_response(
            too_big.status, too_big.detail, code=too_big.code, errors=too_big.errors, request=request
        )
    return problem_http_response(400, "The request could not be read.", code="bad_request", request=request)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.permission_denied(request, exception)
    return problem_http_response(
        403, str(exception) or "Forbidden.", code="permission_denied", request=request
    )


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.page_not_found(request, exception)
    return problem_http_response(
        404, f"No API endpoint at {request.path_info!r}.", code="not_found", request=request
    )


def server_error(request: HttpRequest) -> HttpResponse:
    if not is_api(request):
        return defaults.server_error(request)
    return problem_http_response(
        500,
        "The server failed to answer this request; it has been logged. Quote the request id.",
        code="server_error",
        request=request,
    )
