"""The attack the probe found, on a real gunicorn (DEBUG off, behind a proxy's headers):
a route-scoped operator points its endpoint at a server it runs and names another route's
secret, or moves an endpoint that has one. Neither sends the secret: another route's
binding is a 400 naming `auth`, and the moved endpoint's binding is dropped, so the
attacker's server sees no `Authorization` at all. The secret shows in no answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.live.conftest import vllm_claim
from tests.support.capture import capture_server
from tests.support.factories import example, make_token, make_user, make_version, variant
from tests.support.gunicorn import LiveServer, serve
from worker.secrets import url_host

pytestmark = pytest.mark.integration

SECRET = "sk-gunicorn-7d3a1b-secret"
CHAT_SECRET = "sk-support-chat-secret"
PROBLEM = "application/problem+json"
API = "/api/v1/routes"


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: object) -> Iterator[LiveServer]:
    """The control plane holds both routes' secrets in its environment, as a deployment would."""
    with serve({"SPECPACT_ENDPOINT_PROD_KEY": SECRET, "SPECPACT_ENDPOINT_CHAT_KEY": CHAT_SECRET}) as live:
        yield live


def test_a_scoped_operator_gets_no_secret_sent_to_its_own_server(
    transactional_db: None, server: LiveServer, route_v1: Any, admin: Any, emulator: Any
) -> None:
    live = emulator(*vllm_claim(), "--api-key", SECRET, env={"VLLM_SERVER_DEV_MODE": "1"})
    make_version("support-chat", variant(example(), route="support-chat"))
    admin_token = make_token(admin, "admin").key
    mallory = make_user("mallory-operator", "operator")
    scoped = make_token(mallory, "operator", ["contract-summaries"]).key
    answers: list[str] = []
    with (
        capture_server() as attacker,
        server.client(admin_token) as admin_client,
        server.client(scoped) as client,
    ):
        for slug, name, env, host in (
            ("contract-summaries", "prod-key", "SPECPACT_ENDPOINT_PROD_KEY", url_host(live.base_url)),
            ("support-chat", "chat-key", "SPECPACT_ENDPOINT_CHAT_KEY", "10.0.0.7:8000"),
        ):
            bound = admin_client.post(
                f"{API}/{slug}/secret-bindings/",
                json={"name": name, "kind": "env", "reference": env, "hosts": [host]},
            )
            assert bound.status_code == 201, bound.text
        endpoints = f"{API}/contract-summaries/endpoints/"
        stolen = client.post(
            endpoints,
            json={
                "name": "mine",
                "base_url": attacker.base_url,
                "engine": "vllm",
                "auth": {"binding": "chat-key"},
            },
        )
        assert stolen.status_code == 400 and stolen.headers["content-type"].startswith(PROBLEM)
        assert stolen.json()["errors"][0]["path"] == "auth"
        named = client.post(
            endpoints,
            json={
                "name": "mine",
                "base_url": attacker.base_url,
                "engine": "vllm",
                "auth": {"env": "SPECPACT_ENDPOINT_CHAT_KEY"},
            },
        )
        assert named.status_code == 400 and named.json()["errors"][0]["path"] == "auth"
        created = client.post(
            endpoints,
            json={
                "name": "prod-eu",
                "base_url": live.base_url,
                "engine": "vllm",
                "auth": {"binding": "prod-key"},
            },
        )
        assert created.status_code == 201, created.text
        # Probes run on the control-plane worker (live_app.tasks), with the control plane's
        # environment: here, in this process, with the same secrets set.
        probe = _probe_as_the_control_plane("prod-eu")
        assert probe.state == "conforms", probe.reason  # the bound secret was read and sent
        moved = client.patch(endpoints + "prod-eu/", json={"base_url": attacker.base_url})
        assert moved.status_code == 200 and moved.json()["auth"] is None and moved.json()["auth_dropped"]
        _probe_as_the_control_plane("prod-eu")
        answers += [r.text for r in (stolen, named, created, moved)]
        answers.append(client.get(endpoints + "prod-eu/").text)
        answers.append(client.get(f"{API}/contract-summaries/secret-bindings/").text)
    assert attacker.paths, "the probe went to the attacker's server"
    assert attacker.authorizations == [None] * len(attacker.paths)
    for text in answers:
        assert SECRET not in text and CHAT_SECRET not in text


def _probe_as_the_control_plane(name: str) -> Any:
    import os
    from unittest import mock

    from live_app.models import Endpoint
    from live_app.services.probes import endpoint_probe

    endpoint = Endpoint.objects.select_related("route", "auth_binding").get(name=name)
    secrets = {"SPECPACT_ENDPOINT_PROD_KEY": SECRET, "SPECPACT_ENDPOINT_CHAT_KEY": CHAT_SECRET}
    with mock.patch.dict(os.environ, secrets):
        return endpoint_probe(endpoint=endpoint)
