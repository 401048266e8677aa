"""`metrics_url` on the endpoint's own host (any port) unless an admin allows another: an
operator's other host is a 400 naming `metrics_url` and saying an admin can allow it,
nothing written; an admin's allowance is audited and ends when someone else moves a URL;
a stored other-host URL nobody allowed is not read by the probe."""

from __future__ import annotations

from typing import Any

from audit_app.models import AuditEvent
from live_app.models import Endpoint
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.slow_servers import internal_service

URL = "/api/v1/routes/contract-summaries/endpoints/"
DEV = {"VLLM_SERVER_DEV_MODE": "1"}


def _body(base_url: str, metrics_url: str, **more: Any) -> dict[str, Any]:
    return {"name": "prod-eu", "base_url": base_url, "engine": "vllm", "metrics_url": metrics_url, **more}


def test_an_operators_metrics_url_on_another_host_is_refused_naming_the_field(
    route_v1: Any, operator: Any
) -> None:
    client = as_caller("operator", operator).client()
    response = client.post(
        URL, _body("http://127.0.0.1:8000", "http://127.0.0.2:9100/metrics"), format="json"
    )
    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["path"] == "metrics_url" and "an admin can allow" in error["message"]
    assert not Endpoint.objects.exists() and not AuditEvent.objects.filter(action="endpoint.created").exists()
    same_host = client.post(
        URL, _body("http://127.0.0.1:8000", "http://127.0.0.1:9100/metrics"), format="json"
    )
    assert same_host.status_code == 201, same_host.content  # another port: a sidecar's layout
    asks = client.patch(URL + "prod-eu/", {"metrics_host_allowed": True}, format="json")
    assert asks.status_code == 403  # only an admin allows
    moved = client.patch(URL + "prod-eu/", {"metrics_url": "http://127.0.0.2:9100/metrics"}, format="json")
    assert moved.status_code == 400 and moved.json()["errors"][0]["path"] == "metrics_url"
    assert Endpoint.objects.get().metrics_url == "http://127.0.0.1:9100/metrics"


def test_an_admin_allows_another_host_audited_and_an_operator_moving_it_ends_that(
    route_v1: Any, operator: Any, admin: Any
) -> None:
    other = _body("http://127.0.0.1:8000", "http://127.0.0.2:9100/metrics", metrics_host_allowed=True)
    created = as_caller("admin", admin).client().post(URL, other, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["metrics_host_allowed"] is True
    assert AuditEvent.objects.get(action="endpoint.created").after["metrics_host_allowed"] is True
    client = as_caller("operator", operator).client()
    moved = client.patch(URL + "prod-eu/", {"metrics_url": "http://127.0.0.3:9100/metrics"}, format="json")
    assert moved.status_code == 400, moved.content  # the admin allowed the host they saw, not this one
    back = client.patch(URL + "prod-eu/", {"metrics_url": "http://127.0.0.1:9100/metrics"}, format="json")
    assert back.status_code == 200 and back.json()["metrics_host_allowed"] is False
    updated = AuditEvent.objects.filter(action="endpoint.updated").latest("id")
    assert updated.before["metrics_host_allowed"] is True and updated.after["metrics_host_allowed"] is False


def test_a_stored_metrics_url_on_another_host_nobody_allowed_is_not_read(
    route_v1: Any, operator: Any, emulator: Any
) -> None:
    engine = emulator(*vllm_claim(), env=DEV)
    with internal_service("x") as (internal, _):
        other_host = internal.replace("127.0.0.1", "127.0.0.2") + "/metrics"
        # Registered before the rule: written straight to the table.
        Endpoint.objects.create(route=route_v1, name="prod-eu", base_url=engine.base_url, engine="vllm",
                                expects="active", metrics_url=other_host)  # fmt: skip
        probe = as_caller("operator", operator).client().post(URL + "prod-eu/probe").json()
    assert probe["evidence"]["metrics"]["failure"].startswith(
        "not read: metrics_url must be on base_url's host"
    )
