"""`GET /metrics`: SpecPact's own state in Prometheus' exposition format (docs/observability.md)."""

from __future__ import annotations

import logging

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from kernel.api.problems import problem_http_response
from observability_app.access import refusal
from observability_app.collector import SpecPactCollector

logger = logging.getLogger(__name__)

# One registry holding only SpecPact's collector: no process or platform series, which
# would differ between gunicorn workers (the point of reading everything from the database).
REGISTRY = CollectorRegistry(auto_describe=False)
REGISTRY.register(SpecPactCollector())


@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    try:
        refused = refusal(request)
    except DatabaseError as exc:
        logger.warning("metrics: the token could not be checked: %s", exc)
        response = problem_http_response(
            503,
            "The database did not answer, so the token could not be checked.",
            code="database_unavailable",
        )
        response["Retry-After"] = "15"
        return response
    if refused is not None:
        response = problem_http_response(refused.status, refused.detail, code=refused.code)
        if refused.status == 401:
            response["WWW-Authenticate"] = "Token"
        return response
    # The encoding the scraper asked for (Prometheus asks for OpenMetrics first), as
    # prometheus-client's own exposition apps choose it (exposition.choose_encoder, 0.26).
    encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
    return HttpResponse(encoder(REGISTRY), content_type=content_type)
