"""No 5xx from any query parameter: every GET operation of the OpenAPI schema, each query
parameter it declares given hostile values (tampered cursors, dates PostgreSQL can't hold,
numbers beyond bigint, junk), answers 2xx or a problem+json 4xx."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from audit_app.services import audit_record
from contracts_app.models import Route
from webhooks_app.services import deliveries_write, subscription_create

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


def _cursor(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


JUNK = ["abc", "1e5", "", "-1", "0", "1.5", str(2**63), str(2**70), "9" * 400, "%", "é", "a" * 5000]
DATES = [
    "1685-01-29T21:41:06.947-23:48",
    "0001-01-01T00:00:00+05:00",
    "0001-01-01",
    "9999-12-31T23:59:59-14:00",
    "9999-12-31T23:59:59.999999Z",
    "10000-01-01",
    "2026-02-30T00:00:00Z",
    "2026-01-01T00:00:00+16:00",
]
TAMPERED = ["p=abc", "p=", "p=1e5", "p=-1", f"p={2**70}", f"p={2**63}", "p=\x00", "p=1 ", "o=abc", "r=x"]
CURSORS = [_cursor(c) for c in [*TAMPERED, "o=-5&p=1", "p=%00", "p=0"]] + ["%%%", "é", "abc", ""]
DATES_CURSORS_JUNK = {"date-time": DATES, "cursor": CURSORS}


@pytest.fixture
def world(settings: Any, admin: Any, route_v1: Route) -> dict[str, str]:
    """Values for the path parameters: a route, its first version, a webhook with a delivery."""
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    hook = subscription_create(url="http://127.0.0.1:9/h", events=["*"], actor=admin).subscription
    deliveries_write(event="release.approved", event_key="e1", route=route_v1.slug, data={})
    audit_record(actor=None, action="release.rejected", obj_type="release", obj_id=1, route=route_v1.slug)
    return {
        "slug": route_v1.slug,
        "number": "1",
        "webhook_id": str(hook.pk),
        "name": "missing",
        "key": "missing",
    }


def _get_operations(client: APIClient) -> list[tuple[str, list[dict[str, Any]]]]:
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    return [(path, ops["get"].get("parameters", [])) for path, ops in schema["paths"].items() if "get" in ops]


def _values(parameter: dict[str, Any]) -> list[str]:
    kind = "cursor" if parameter["name"] == "cursor" else parameter.get("schema", {}).get("format", "")
    return JUNK + DATES_CURSORS_JUNK.get(kind, [])


def test_every_get_operation_answers_hostile_query_values_without_a_5xx(
    admin_client: APIClient, world: dict[str, str]
) -> None:
    operations = _get_operations(admin_client)
    assert len(operations) > 20  # the walk reaches the whole API
    failures = []
    for template, parameters in operations:
        path = template
        for p in (p for p in parameters if p["in"] == "path"):
            path = path.replace("{" + p["name"] + "}", world.get(p["name"], "1"))
        for parameter in (p for p in parameters if p["in"] == "query"):
            for value in _values(parameter):
                response = admin_client.get(path, {parameter["name"]: value})
                bad = response.status_code >= 500 or (
                    response.status_code >= 400 and response["Content-Type"] != PROBLEM
                )
                if bad:
                    failures.append((path, parameter["name"], value[:40], response.status_code))
    assert failures == []


@pytest.mark.parametrize("path", ["/api/v1/audit/", "/api/v1/runs/"])
@pytest.mark.parametrize("cursor", [_cursor(c) for c in TAMPERED])
def test_a_tampered_cursor_is_a_400_naming_it(admin_client: APIClient, path: str, cursor: str) -> None:
    response = admin_client.get(path, {"cursor": cursor})
    assert response.status_code == 400, (cursor, response.content[:200])
    assert [e["path"] for e in response.json()["errors"]] == ["cursor"]


def test_a_cursor_from_a_next_link_still_works(admin_client: APIClient, world: dict[str, str]) -> None:
    for n in range(3):
        audit_record(actor=None, action="release.rejected", obj_type="release", obj_id=n, route=world["slug"])
    first = admin_client.get("/api/v1/audit/", {"limit": 1}).json()
    assert first["next"]
    second = admin_client.get(first["next"])
    assert second.status_code == 200 and second.json()["results"]


@pytest.mark.parametrize(
    "value",
    [
        "1685-01-29T21:41:06.947-23:48",
        "0001-01-01T00:00:00+05:00",
        "9999-12-31T23:59:59-14:00",
        "10000-01-01",
        "2026-01-01T00:00:00+16:00",
    ],
)
def test_an_audit_date_the_database_cannot_hold_is_a_400_naming_the_field(
    admin_client: APIClient, value: str
) -> None:
    for field in ("since", "until"):
        response = admin_client.get("/api/v1/audit/", {field: value})
        assert response.status_code == 400, (value, response.content[:200])
        assert [e["path"] for e in response.json()["errors"]] == [field]


@pytest.mark.parametrize(
    "value",
    ["0001-01-01", "0001-01-01T00:00:00-05:00", "9999-12-31T23:59:59.999999Z", "2026-01-01T00:00:00+15:59"],
)
def test_the_extremes_the_database_holds_are_accepted(admin_client: APIClient, value: str) -> None:
    for field in ("since", "until"):
        assert admin_client.get("/api/v1/audit/", {field: value}).status_code == 200, value


def test_an_id_filter_beyond_bigint_is_a_400_naming_it(admin_client: APIClient) -> None:
    for field in ("release", "worker"):
        response = admin_client.get("/api/v1/runs/", {field: str(2**63)})
        assert response.status_code == 400, response.content[:200]
        assert [e["path"] for e in response.json()["errors"]] == [field]
        assert admin_client.get("/api/v1/runs/", {field: str(2**63 - 1)}).status_code == 200


def test_every_get_operation_answers_hostile_path_values_without_a_5xx(
    admin_client: APIClient, world: dict[str, str]
) -> None:
    failures = []
    for template, parameters in _get_operations(admin_client):
        names = [p["name"] for p in parameters if p["in"] == "path"]
        for name in names:
            for value in ("0", str(2**63), str(2**70), "9" * 400, "abc", "%C3%A9", "a" * 300):
                path = template
                for other in names:
                    path = path.replace("{" + other + "}", value if other == name else world.get(other, "1"))
                response = admin_client.get(path)
                if response.status_code >= 500 or (
                    response.status_code >= 400 and response["Content-Type"] != PROBLEM
                ):
                    failures.append((path[:80], response.status_code))
    assert failures == []


def test_the_audit_page_names_a_date_the_database_cannot_hold(viewer: Any) -> None:
    client = Client()
    client.force_login(viewer)
    for value in ("1685-01-29T21:41:06.947-23:48", "9999-12-31T23:59:59-14:00"):
        response = client.get("/audit/", {"since": value})
        assert response.status_code == 200
        html = response.content.decode()
        assert 'role="alert"' in html and "since:" in html
