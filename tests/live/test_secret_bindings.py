"""Secrets as bindings: an admin binds a secret to a route and the hosts it may go to;
operators pick among their route's bindings, and can neither name a secret, use another
route's binding, nor take one along by moving an endpoint's URL; the secret never shows."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.test import override_settings

from audit_app.models import AuditEvent
from benchmarks_app.models import Run
from live_app.models import Endpoint, Probe, SecretBinding
from live_app.services import endpoint_create
from live_app.services.bindings import binding_create
from tests.live.conftest import vllm_claim
from tests.support.actors import Caller, as_caller
from tests.support.capture import capture_server
from tests.support.factories import example, make_token, make_user, make_version, variant
from worker.secrets import url_host

ROUTE = "contract-summaries"
BINDINGS = f"/api/v1/routes/{ROUTE}/secret-bindings/"
ENDPOINTS = f"/api/v1/routes/{ROUTE}/endpoints/"
SECRET = "sk-live-9f1c2e-very-secret"
DEV = {"VLLM_SERVER_DEV_MODE": "1"}
NO_BROKER = "redis://127.0.0.1:9/0"


@pytest.fixture
def live(emulator: Any) -> Any:
    """A vLLM serving the route's contract that wants `Authorization: Bearer SECRET`."""
    return emulator(*vllm_claim(), "--api-key", SECRET, env=DEV)


@pytest.fixture
def bound(route_v1: Any, admin: Any, live: Any, monkeypatch: Any) -> SecretBinding:
    monkeypatch.setenv("SPECPACT_ENDPOINT_PROD_KEY", SECRET)
    return binding_create(
        route=route_v1,
        name="prod-key",
        kind="env",
        reference="SPECPACT_ENDPOINT_PROD_KEY",
        hosts=[url_host(live.base_url)],
        actor=admin,
    )


@pytest.fixture
def other_route(admin: Any, monkeypatch: Any) -> SecretBinding:
    """`support-chat` and its own binding: another team's token."""
    monkeypatch.setenv("SPECPACT_ENDPOINT_CHAT_KEY", "sk-the-other-routes-token")
    version = make_version("support-chat", variant(example(), route="support-chat"))
    return binding_create(
        route=version.route,
        name="chat-key",
        kind="env",
        reference="SPECPACT_ENDPOINT_CHAT_KEY",
        hosts=["10.0.0.7:8000"],
        actor=admin,
    )


def _scoped(role: str, route: str, name: str) -> Caller:
    user = make_user(name, role)
    issued = make_token(user, role, [route])
    return Caller(name, user=user, key=issued.key, token=issued.token)


def _endpoint(base_url: str, **changes: Any) -> dict[str, Any]:
    return {"name": "prod-eu", "base_url": base_url, "engine": "vllm", "expects": "active", **changes}


def test_an_admin_binds_a_secret_and_the_route_sees_where_it_is_never_what(
    route_v1: Any, admin: Any, operator: Any, viewer: Any, outsider: Any
) -> None:
    body = {
        "name": "prod-key",
        "kind": "env",
        "reference": "SPECPACT_ENDPOINT_PROD_KEY",
        "hosts": ["VLLM.Internal:8000", "::1", "vllm.internal:8000"],
    }
    assert as_caller("operator", operator).client().post(BINDINGS, body, format="json").status_code == 403
    response = as_caller("admin", admin).client().post(BINDINGS, body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["hosts"] == ["vllm.internal:8000", "[::1]"]
    event = AuditEvent.objects.get(action="secret_binding.created")
    assert event.route == ROUTE and event.after["reference"] == "SPECPACT_ENDPOINT_PROD_KEY"
    listed = as_caller("viewer", viewer).client().get(BINDINGS).json()
    assert [(b["name"], b["kind"], b["reference"], b["endpoints"]) for b in listed] == [
        ("prod-key", "env", "SPECPACT_ENDPOINT_PROD_KEY", [])
    ]
    assert outsider.client().get(BINDINGS).status_code == 404
    elsewhere_admin = _scoped("admin", "elsewhere", "ed-elsewhere-admin")
    assert elsewhere_admin.client().post(BINDINGS, {**body, "name": "x"}, format="json").status_code == 404
    changed = (
        as_caller("admin", admin)
        .client()
        .patch(BINDINGS + "prod-key/", {"hosts": ["10.0.0.9"]}, format="json")
    )
    assert changed.status_code == 200 and changed.json()["hosts"] == ["10.0.0.9"]
    assert AuditEvent.objects.get(action="secret_binding.updated").before["hosts"] == [
        "vllm.internal:8000",
        "[::1]",
    ]


@pytest.mark.parametrize(
    ("changes", "field", "fragment"),
    [
        ({"reference": "SECRET_KEY"}, "reference", "starting with SPECPACT_ENDPOINT_"),
        ({"kind": "file", "reference": "/etc/shadow"}, "reference", "ENDPOINT_SECRET_DIRS"),
        ({"kind": "file", "reference": "relative/path"}, "reference", "absolute path"),
        ({"kind": "vault"}, "kind", ""),
        ({"hosts": []}, "hosts", "a list of 1-32 hosts"),
        ({"hosts": ["http://10.0.0.5:8000/"]}, "hosts[0]", "no scheme, path or user"),
        ({"hosts": ["10.0.0.5", "h:99999"]}, "hosts[1]", "a port is 1-65535"),
        ({"hosts": ["evil host"]}, "hosts[0]", "not a host name"),
        ({"name": "Prod Key"}, "name", "lowercase"),
    ],
)
def test_a_bad_binding_is_refused_naming_the_field(
    route_v1: Any, admin: Any, changes: dict[str, Any], field: str, fragment: str
) -> None:
    body = {
        "name": "prod-key",
        "kind": "env",
        "reference": "SPECPACT_ENDPOINT_PROD_KEY",
        "hosts": ["10.0.0.5"],
        **changes,
    }
    response = as_caller("admin", admin).client().post(BINDINGS, body, format="json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    errors = response.json()["errors"]
    assert any(e["path"] == field and fragment in e["message"] for e in errors), errors
    assert (
        not SecretBinding.objects.exists()
        and not AuditEvent.objects.filter(action__startswith="secret").exists()
    )


def test_a_route_scoped_operator_cannot_use_another_routes_binding(
    route_v1: Any, other_route: SecretBinding, bound: SecretBinding, pipeline: Caller
) -> None:
    client = pipeline.client()  # an operator token scoped to contract-summaries
    assert client.get("/api/v1/routes/support-chat/secret-bindings/").status_code == 404
    stolen = client.post(
        ENDPOINTS, _endpoint("http://10.0.0.7:8000", auth={"binding": "chat-key"}), format="json"
    )
    assert stolen.status_code == 400
    assert stolen.json()["errors"] == [
        {"path": "auth", "message": "'contract-summaries' has no secret binding 'chat-key'"}
    ]
    # Naming the variable directly, as before, is the old shape: bind it first.
    named = client.post(
        ENDPOINTS,
        _endpoint("http://10.0.0.7:8000", auth={"env": "SPECPACT_ENDPOINT_CHAT_KEY"}),
        format="json",
    )
    assert named.status_code == 400 and "/secret-bindings/" in named.json()["errors"][0]["message"]
    # Its own route's binding, but for a host the binding doesn't name.
    elsewhere = client.post(
        ENDPOINTS, _endpoint("http://10.0.0.7:8000", auth={"binding": "prod-key"}), format="json"
    )
    assert elsewhere.status_code == 400 and "is sent only to" in elsewhere.json()["errors"][0]["message"]
    assert not Endpoint.objects.exists()


def test_moving_an_endpoint_off_its_bindings_hosts_drops_its_secret(
    route_v1: Any, bound: SecretBinding, operator: Any, admin: Any, live: Any
) -> None:
    client = as_caller("operator", operator).client()
    created = client.post(ENDPOINTS, _endpoint(live.base_url, auth={"binding": "prod-key"}), format="json")
    assert created.status_code == 201, created.content
    assert client.post(ENDPOINTS + "prod-eu/probe").json()["state"] == "conforms"  # the token went
    with capture_server() as attacker:
        both = client.patch(
            ENDPOINTS + "prod-eu/",
            {"base_url": attacker.base_url, "auth": {"binding": "prod-key"}},
            format="json",
        )
        assert both.status_code == 400 and both.json()["errors"][0]["path"] == "auth"
        moved = client.patch(ENDPOINTS + "prod-eu/", {"base_url": attacker.base_url}, format="json")
        assert moved.status_code == 200, moved.content
        assert moved.json()["auth"] is None
        assert "binding 'prod-key' dropped" in moved.json()["auth_dropped"]
        event = AuditEvent.objects.get(action="endpoint.updated")
        assert event.before["auth"] == {"binding": "prod-key", "env": "SPECPACT_ENDPOINT_PROD_KEY"}
        assert event.after["auth"] is None and "dropped" in event.after["auth_dropped"]
        client.post(ENDPOINTS + "prod-eu/probe")
        assert attacker.paths, "the probe reached the new URL"
        assert attacker.authorizations == [None] * len(attacker.paths)
    back = client.patch(
        ENDPOINTS + "prod-eu/", {"base_url": live.base_url, "auth": {"binding": "prod-key"}}, format="json"
    )
    assert back.status_code == 200 and back.json()["auth_dropped"] is None
    # An admin narrowing the hosts: the endpoint keeps the binding, but its URL gets no secret.
    as_caller("admin", admin).client().patch(BINDINGS + "prod-key/", {"hosts": ["10.9.9.9"]}, format="json")
    probe = client.post(ENDPOINTS + "prod-eu/probe").json()
    assert probe["state"] == "unknown" and "is sent only to 10.9.9.9" in probe["reason"]


def test_the_secret_is_never_logged_or_echoed(
    route_v1: Any, bound: SecretBinding, operator: Any, admin: Any, live: Any, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    client = as_caller("operator", operator).client()
    bodies = [
        client.post(ENDPOINTS, _endpoint(live.base_url, auth={"binding": "prod-key"}), format="json").content,
        client.post(ENDPOINTS + "prod-eu/probe").content,
        client.get(ENDPOINTS).content,
        client.get(ENDPOINTS + "prod-eu/").content,
        client.get(BINDINGS).content,
        client.get(BINDINGS + "prod-key/").content,
    ]
    with capture_server() as attacker:
        bodies.append(
            client.patch(ENDPOINTS + "prod-eu/", {"base_url": attacker.base_url}, format="json").content
        )
        bodies.append(client.post(ENDPOINTS + "prod-eu/probe").content)
    bodies.append(
        as_caller("admin", admin).client().delete(BINDINGS + "prod-key/", {}, format="json").content
    )
    stored = [
        *AuditEvent.objects.values_list("before", "after", "reason"),
        *Probe.objects.values_list("evidence", "reason", "differences", "unknown"),
    ]
    assert b"conforms" in bodies[1]  # the secret was read and sent, and still shows nowhere
    for text in (caplog.text, str(stored), b"".join(bodies).decode()):
        assert SECRET not in text


def test_deleting_a_binding_in_use_waits_for_its_endpoints(
    route_v1: Any, bound: SecretBinding, operator: Any, admin: Any, live: Any
) -> None:
    endpoint_create(
        route=route_v1,
        name="prod-eu",
        base_url=live.base_url,
        engine="vllm",
        auth={"binding": "prod-key"},
        actor=operator,
    )
    admin_client = as_caller("admin", admin).client()
    assert as_caller("operator", operator).client().delete(BINDINGS + "prod-key/").status_code == 403
    refused = admin_client.delete(BINDINGS + "prod-key/", {}, format="json")
    assert refused.status_code == 409 and "prod-eu" in refused.json()["detail"]
    as_caller("operator", operator).client().patch(ENDPOINTS + "prod-eu/", {"auth": None}, format="json")
    assert (
        admin_client.delete(BINDINGS + "prod-key/", {"reason": "rotated"}, format="json").status_code == 204
    )
    assert AuditEvent.objects.get(action="secret_binding.deleted").reason == "rotated"


def _run_body(auth: dict[str, str], base_url: str = "http://127.0.0.1:1") -> dict[str, Any]:
    return {
        "route": ROUTE,
        "baseline_version": 1,
        "candidate_version": 1,
        "lane": "extraction",
        "engine": "openai",
        "endpoints": {
            "baseline": {"base_url": base_url, "model": "m", **auth},
            "candidate": {"base_url": base_url, "model": "m"},
        },
    }


def test_a_standalone_run_carries_only_a_binding_the_requesters_route_owns(
    route_v1: Any, other_route: SecretBinding, admin: Any, pipeline: Caller
) -> None:
    binding_create(
        route=route_v1,
        name="bench-key",
        kind="env",
        reference="SPECPACT_ENDPOINT_BENCH_KEY",
        hosts=["127.0.0.1:1"],
        actor=admin,
    )
    client = pipeline.client()
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        for auth, fragment in [
            (
                {"api_key_env": "SPECPACT_ENDPOINT_CHAT_KEY"},
                "not one of 'contract-summaries''s secret bindings",
            ),
            ({"binding": "chat-key"}, "not one of"),
            ({"api_key_file": "/etc/shadow"}, "not one of"),
        ]:
            refused = client.post("/api/v1/runs/", _run_body(auth), format="json")
            assert refused.status_code == 400, refused.content
            (error,) = refused.json()["errors"]
            assert error["path"] == f"endpoints.baseline.{next(iter(auth))}" and fragment in error["message"]
        other_host = client.post(
            "/api/v1/runs/", _run_body({"binding": "bench-key"}, "http://127.0.0.1:2"), format="json"
        )
        assert (
            other_host.status_code == 400
            and "bound only to 127.0.0.1:1" in other_host.json()["errors"][0]["message"]
        )
        assert not Run.objects.exists()
        accepted = client.post(
            "/api/v1/runs/", _run_body({"api_key_env": "SPECPACT_ENDPOINT_BENCH_KEY"}), format="json"
        )
    assert accepted.status_code == 201, accepted.content
    engine = Run.objects.get().spec["arms"]["baseline"]["engine"]
    assert engine["auth_binding"] == {
        "route": ROUTE,
        "name": "bench-key",
        "kind": "env",
        "reference": "SPECPACT_ENDPOINT_BENCH_KEY",
        "hosts": ["127.0.0.1:1"],
    }
    assert "api_key_env" not in engine or engine["api_key_env"] is None
