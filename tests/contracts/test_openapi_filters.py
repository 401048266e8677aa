"""The OpenAPI schema documents every list endpoint's filters (from its FilterSet) and its
real response envelope; the browsable API renders those lists and their filter forms."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.actors import Caller

pytestmark = pytest.mark.django_db

PAGED = {"limit", "offset"}
# The audit log and the run list page by cursor (stable under inserts).
CURSOR_PAGED = {"/api/v1/audit/", "/api/v1/runs/"}
FILTERS = {
    "/api/v1/routes/": {"method", "lane"},
    "/api/v1/routes/{slug}/versions/": {"digest", "method"},
    "/api/v1/releases/": {"route", "state"},
    "/api/v1/runs/": {"state", "route", "release", "worker", "lane"},
    "/api/v1/workers/": {"status", "hardware_class"},
    "/api/v1/audit/": {"action", "route", "actor", "object", "since", "until"},
    "/api/v1/tokens/": {"role", "state", "user"},
}


@pytest.fixture
def schema(viewer: Any) -> dict[str, Any]:
    response = (
        Caller("v", user=viewer)
        .client()
        .get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    )
    assert response.status_code == 200
    return dict(response.json())


def _query_parameters(schema: dict[str, Any], path: str) -> dict[str, Any]:
    return {p["name"]: p for p in schema["paths"][path]["get"]["parameters"] if p["in"] == "query"}


@pytest.mark.parametrize("path", sorted(FILTERS))
def test_each_list_endpoint_documents_its_filters(schema: dict[str, Any], path: str) -> None:
    paged = set() if path == "/api/v1/workers/" else {"cursor", "limit"} if path in CURSOR_PAGED else PAGED
    assert set(_query_parameters(schema, path)) == FILTERS[path] | paged


def test_choices_ids_and_times_carry_their_types(schema: dict[str, Any]) -> None:
    releases = _query_parameters(schema, "/api/v1/releases/")
    assert releases["state"]["schema"]["type"] == "array" and releases["state"]["explode"] is False
    assert "awaiting_review" in releases["state"]["schema"]["items"]["enum"]
    runs = _query_parameters(schema, "/api/v1/runs/")
    assert runs["release"]["schema"]["type"] == runs["worker"]["schema"]["type"] == "integer"
    audit = _query_parameters(schema, "/api/v1/audit/")
    assert audit["since"]["schema"] == {"type": "string", "format": "date-time"}
    assert audit["action"]["description"].startswith("an action, or a prefix")
    routes = _query_parameters(schema, "/api/v1/routes/")
    assert "eagle3" in routes["method"]["schema"]["enum"]


def test_paged_lists_document_the_envelope_they_answer_with(schema: dict[str, Any]) -> None:
    ok = schema["paths"]["/api/v1/releases/"]["get"]["responses"]["200"]["content"]["application/json"]
    name = ok["schema"]["$ref"].rsplit("/", 1)[1]
    assert set(schema["components"]["schemas"][name]["properties"]) == {
        "count",
        "next",
        "previous",
        "results",
    }
    workers = schema["paths"]["/api/v1/workers/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert workers["schema"]["type"] == "array"


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/routes/?method=ngram",
        "/api/v1/releases/?state=active",
        "/api/v1/runs/?state=queued",
        "/api/v1/workers/?status=online",
        "/api/v1/audit/?action=release",
        "/api/v1/tokens/?state=active",
    ],
)
def test_the_browsable_api_renders_each_list_with_its_filter_form(admin: Any, url: str) -> None:
    response = Caller("a", user=admin).client().get(url, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert b"Filters" in response.content
