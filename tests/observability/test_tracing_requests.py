"""Tracing on, in this process: a real request through the Django test client makes a
server span with its route and status, its SQL spans in the same trace, and nothing
secret in any attribute; /metrics and static files make none."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from opentelemetry.trace import SpanKind

from tests.support.factories import make_token
from tests.support.tracing import traced

SECRET_QUERY = "s3cret-code-value"


def _all_attribute_text(spans: Any) -> str:
    return repr([dict(span.attributes or {}) for span in spans])


def test_a_request_makes_a_server_span_with_route_status_and_its_sql(
    transactional_db: None, route_v1: Any, viewer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = make_token(viewer, "viewer").key
    # The psycopg instrumentation wraps the connections made after it: the one the
    # fixtures used is closed, so the request makes a new one, as a web process started
    # with tracing on does (transactional_db: nothing is lost by closing it).
    connection.close()
    # An operator who asks for every header to be captured still gets no secret one.
    monkeypatch.setenv("OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_REQUEST", ".*")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_RESPONSE", ".*")
    with traced() as exporter:
        response = Client().get(
            f"/api/v1/routes/contract-summaries/?code={SECRET_QUERY}&plain",
            HTTP_AUTHORIZATION=f"Token {key}",
            HTTP_COOKIE="sessionid=cookie-secret-value",
        )
        assert response.status_code == 200, response.content
        spans = exporter.get_finished_spans()

    servers = [s for s in spans if s.kind == SpanKind.SERVER]
    assert len(servers) == 1, [s.name for s in spans]
    server = servers[0]
    assert server.attributes["http.route"] == "api/v1/routes/<str:slug>/"
    assert server.attributes["http.status_code"] == 200
    assert server.name == "GET api/v1/routes/<str:slug>/"
    assert server.resource.attributes["service.name"] == "specpact-web"
    # The headers were captured (the variable took effect) and their values replaced.
    assert server.attributes["http.request.header.authorization"] == ("REDACTED",)
    assert server.attributes["http.request.header.cookie"] == ("REDACTED",)
    # The query string's names stay, its values don't.
    assert (
        server.attributes["http.url"]
        == "http://testserver/api/v1/routes/contract-summaries/?code=REDACTED&REDACTED"
    )
    sql = [s for s in spans if s.kind == SpanKind.CLIENT and s.attributes.get("db.system") == "postgresql"]
    assert sql, [s.name for s in spans]
    assert {s.context.trace_id for s in sql} == {server.context.trace_id}
    text = _all_attribute_text(spans)
    for secret in (key, SECRET_QUERY, "cookie-secret-value"):
        assert secret not in text


def test_an_error_status_is_on_the_span(db: None, viewer: Any) -> None:
    key = make_token(viewer, "viewer").key
    with traced() as exporter:
        response = Client().get("/api/v1/routes/no-such-route/", HTTP_AUTHORIZATION=f"Token {key}")
        assert response.status_code == 404
        (server,) = [s for s in exporter.get_finished_spans() if s.kind == SpanKind.SERVER]
    assert server.attributes["http.status_code"] == 404
    assert server.attributes["http.route"] == "api/v1/routes/<str:slug>/"


def test_metrics_scrapes_static_files_and_the_health_check_are_not_traced(db: None) -> None:
    with traced() as exporter:
        assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 200
        Client().get("/static/specpact.css")
        assert Client().get("/api/v1/runs/spec-schema").status_code == 200  # the health check
        assert [s for s in exporter.get_finished_spans() if s.kind == SpanKind.SERVER] == []
        # The exclusion is of those paths only: a page beside them is traced.
        Client().get("/login/")
        assert [s.kind for s in exporter.get_finished_spans()].count(SpanKind.SERVER) == 1


def test_the_operators_excluded_urls_are_added(db: None, settings: Any) -> None:
    settings.TRACING_EXCLUDED_URLS = ["/login/$"]
    with traced() as exporter:
        Client().get("/login/")
        assert [s for s in exporter.get_finished_spans() if s.kind == SpanKind.SERVER] == []
