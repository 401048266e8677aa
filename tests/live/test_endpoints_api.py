"""`routes/{slug}/endpoints/…`: register, list, read, delete, probe; who may; bad input
refused with the field named and nothing written; every change audited."""

from __future__ import annotations

from typing import Any

import pytest

from audit_app.models import AuditEvent
from live_app.models import Endpoint
from live_app.services.bindings import binding_create
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from worker.secrets import url_host

URL = "/api/v1/routes/contract-summaries/endpoints/"
DEV = {"VLLM_SERVER_DEV_MODE": "1"}


def _body(base_url: str, **changes: Any) -> dict[str, Any]:
    return {"name": "prod-eu", "base_url": base_url, "engine": "vllm", "expects": "active", **changes}


@pytest.fixture
def live(emulator: Any) -> Any:
    return emulator(*vllm_claim(), env=DEV)


def test_an_operator_registers_an_endpoint_and_the_change_is_audited(
    route_v1: Any, operator: Any, live: Any
) -> None:
    client = as_caller("operator", operator).client()
    response = client.post(URL, _body(live.base_url), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["state"] == "unknown" and response.json()["last_probe"] is None
    event = AuditEvent.objects.get(action="endpoint.created")
    assert event.route == "contract-summaries" and event.after["name"] == "prod-eu"
    listed = client.get(URL).json()
    assert [e["name"] for e in listed] == ["prod-eu"]
    again = client.post(URL, _body(live.base_url), format="json")
    assert again.status_code == 409


def test_a_probe_answers_with_the_result_and_a_state_change_is_audited(
    route_v1: Any, operator: Any, viewer: Any, live: Any
) -> None:
    client = as_caller("operator", operator).client()
    assert client.post(URL, _body(live.base_url), format="json").status_code == 201
    response = client.post(URL + "prod-eu/probe")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["state"] == "conforms" and body["version"] == 1 and body["differences"] == []
    assert set(body) >= {"state", "differences", "unknown", "probed_at", "evidence"}
    change = AuditEvent.objects.get(action="drift.state_changed")
    assert change.before["state"] == "unknown" and change.after["state"] == "conforms"
    client.post(URL + "prod-eu/probe")  # the same state again: no new event
    assert AuditEvent.objects.filter(action="drift.state_changed").count() == 1
    seen = as_caller("viewer", viewer).client().get(URL + "prod-eu/")
    assert seen.json()["last_probe"]["state"] == "conforms"
    assert as_caller("viewer", viewer).client().post(URL + "prod-eu/probe").status_code == 403


def test_only_admins_delete(route_v1: Any, operator: Any, admin: Any, live: Any) -> None:
    as_caller("operator", operator).client().post(URL, _body(live.base_url), format="json")
    assert as_caller("operator", operator).client().delete(URL + "prod-eu/").status_code == 403
    assert (
        as_caller("admin", admin)
        .client()
        .delete(URL + "prod-eu/", {"reason": "gone"}, format="json")
        .status_code
        == 204
    )
    assert not Endpoint.objects.exists()
    assert AuditEvent.objects.get(action="endpoint.deleted").before["name"] == "prod-eu"


def test_viewers_cannot_register_and_scoped_tokens_see_only_their_routes(
    route_v1: Any, viewer: Any, outsider: Any, live: Any
) -> None:
    assert (
        as_caller("viewer", viewer).client().post(URL, _body(live.base_url), format="json").status_code == 403
    )
    assert outsider.client().get(URL).status_code == 404


@pytest.mark.parametrize(
    ("changes", "field", "fragment"),
    [
        ({"base_url": "http://8.8.8.8/"}, "base_url", "outside the allowed networks"),
        ({"base_url": "http://169.254.169.254/latest/"}, "base_url", "link-local, metadata"),
        ({"base_url": "http://[fd00:ec2::254]/"}, "base_url", "link-local, metadata"),
        ({"base_url": "http://100.100.100.200/"}, "base_url", "link-local, metadata"),
        ({"base_url": "ftp://10.0.0.5/"}, "base_url", "only http and https"),
        ({"base_url": "file:///etc/passwd"}, "base_url", "only http and https"),
        ({"base_url": "http://user:pw@10.0.0.5/"}, "base_url", "credentials in the URL"),
        ({"metrics_url": "http://169.254.169.254/metrics"}, "metrics_url", "link-local"),
        ({"engine": "trt-llm"}, "engine", ""),
        ({"expects": "release:999"}, "expects", "no open release 999"),
        ({"expects": "latest"}, "expects", "active, or release:<id>"),
        ({"name": "Prod EU"}, "name", "lowercase"),
        ({"auth": "sk-live-secret"}, "auth", "never the secret"),
        ({"auth": {"env": "SECRET_KEY"}}, "auth", "binds it to the route and its hosts first"),
        ({"auth": {"file": "/etc/shadow"}}, "auth", "/secret-bindings/"),
        ({"auth": {"binding": "nowhere"}}, "auth", "no secret binding 'nowhere'"),
    ],
)
def test_bad_input_is_refused_naming_the_field(
    route_v1: Any, operator: Any, changes: dict[str, Any], field: str, fragment: str
) -> None:
    body = {**_body("http://10.0.0.5:8000"), **changes}
    response = as_caller("operator", operator).client().post(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    errors = response.json()["errors"]
    assert any(e["path"] == field and fragment in e["message"] for e in errors), errors
    assert not Endpoint.objects.exists()
    assert not AuditEvent.objects.filter(action="endpoint.created").exists()


def test_the_default_networks_leave_loopback_out(route_v1: Any, operator: Any, settings: Any) -> None:
    import specpact.settings as shipped  # the module's value: the environment sets none here

    settings.ENDPOINT_ALLOWED_NETWORKS = shipped.ENDPOINT_ALLOWED_NETWORKS
    assert "127.0.0.0/8" not in shipped.ENDPOINT_ALLOWED_NETWORKS
    response = (
        as_caller("operator", operator).client().post(URL, _body("http://127.0.0.1:8000"), format="json")
    )
    assert response.status_code == 400
    assert "outside the allowed networks" in response.json()["errors"][0]["message"]


def test_the_secret_is_resolved_at_probe_time_and_never_shown(
    route_v1: Any, operator: Any, admin: Any, live: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("SPECPACT_ENDPOINT_PROD_KEY", "sk-very-secret")
    binding_create(route=route_v1, name="prod-key", kind="env", reference="SPECPACT_ENDPOINT_PROD_KEY",
                   hosts=[url_host(live.base_url)], actor=admin)  # fmt: skip
    client = as_caller("operator", operator).client()
    response = client.post(URL, _body(live.base_url, auth={"binding": "prod-key"}), format="json")
    assert response.status_code == 201
    assert response.json()["auth"] == {"binding": "prod-key", "env": "SPECPACT_ENDPOINT_PROD_KEY"}
    assert client.post(URL + "prod-eu/probe").json()["state"] == "conforms"
    monkeypatch.delenv("SPECPACT_ENDPOINT_PROD_KEY")
    probe = client.post(URL + "prod-eu/probe").json()
    assert probe["state"] == "unknown" and "SPECPACT_ENDPOINT_PROD_KEY is not set" in probe["reason"]
    everything = b"".join(
        [client.get(URL).content, client.get(URL + "prod-eu/").content,
         str(list(AuditEvent.objects.values_list("after", flat=True))).encode()]
    )  # fmt: skip
    assert b"sk-very-secret" not in everything


def test_a_probe_of_an_unreachable_endpoint_is_200_unknown(route_v1: Any, operator: Any) -> None:
    from tests.support.launcher import reserved_port

    client = as_caller("operator", operator).client()
    with reserved_port() as port:
        client.post(URL, _body(f"http://127.0.0.1:{port}"), format="json")
        response = client.post(URL + "prod-eu/probe")
    assert response.status_code == 200
    assert response.json()["state"] == "unknown" and response.json()["reason"]


def test_a_trickling_endpoint_does_not_hold_the_request_past_the_probe_limit(
    route_v1: Any, operator: Any, emulator: Any, settings: Any
) -> None:
    import time

    settings.ENDPOINT_PROBE_TIMEOUT_S = 2
    client = as_caller("operator", operator).client()
    client.post(URL, _body(emulator("--hostile", "trickle").base_url), format="json")
    started = time.monotonic()
    response = client.post(URL + "prod-eu/probe")
    assert time.monotonic() - started < 3.0
    assert response.status_code == 200 and response.json()["state"] == "unknown"
    assert "within" in response.json()["reason"]
