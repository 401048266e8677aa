"""`POST …/endpoints/{name}/probe` asks the control-plane worker for a probe: 200 with the
probe when it is done within ENDPOINT_PROBE_WAIT_S, else 202 with `Location`, the request
to read (`…/probes/{id}`); a broker that is down is a 503 problem, nothing probed. The
probe and its audit events name who asked. The page's button queues and answers at once."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from audit_app.models import AuditEvent
from live_app.models import Probe, ProbeRequest
from live_app.tasks import probe_endpoints, probe_request_task
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.factories import make_token

URL = "/api/v1/routes/contract-summaries/endpoints/"
DEV = {"VLLM_SERVER_DEV_MODE": "1"}
PROBLEM = "application/problem+json"


@pytest.fixture
def live(route_v1: Any, operator: Any, emulator: Any) -> Any:
    engine = emulator(*vllm_claim(), env=DEV)
    client = as_caller("operator", operator).client()
    body = {"name": "prod-eu", "base_url": engine.base_url, "engine": "vllm"}
    assert client.post(URL, body, format="json").status_code == 201
    return engine


def test_a_probe_done_within_the_wait_answers_200_and_names_who_asked(live: Any, operator: Any) -> None:
    issued = make_token(operator, "operator")
    client = as_caller("pipeline", operator).client()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    response = client.post(URL + "prod-eu/probe")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["state"] == "conforms" and body["actor"] == f"token:{issued.token.prefix}"
    asked = ProbeRequest.objects.get()
    assert response["Location"] == f"{URL}prod-eu/probes/{asked.pk}"
    probe = Probe.objects.get()
    assert probe.actor == body["actor"] and probe.requested_by == operator
    requested = AuditEvent.objects.get(action="probe.requested")
    changed = AuditEvent.objects.get(action="drift.state_changed")
    assert requested.actor_label == changed.actor_label == body["actor"]
    assert changed.after["probe"] == probe.pk
    read = client.get(response["Location"]).json()
    assert read["state"] == "done" and read["probe"]["state"] == "conforms"


def test_a_probe_not_done_within_the_wait_is_202_with_where_to_read_it(
    live: Any, operator: Any, viewer: Any, settings: Any, protocol: Any, sends_through_the_broker: None
) -> None:
    settings.ENDPOINT_PROBE_WAIT_S = 0.2  # a real broker, and no worker consuming it yet
    client = as_caller("operator", operator).client()
    response = client.post(URL + "prod-eu/probe")
    assert response.status_code == 202, response.content
    assert response.json()["state"] == "queued" and response.json()["probe"] is None
    location = response["Location"]
    reader = as_caller("viewer", viewer).client()  # viewers read what operators asked
    assert reader.get(location).json()["state"] == "queued"
    asked = ProbeRequest.objects.get()
    probe_request_task.apply(args=[asked.pk])  # what the control-plane worker does with it
    read = reader.get(location).json()
    assert read["state"] == "done" and read["actor"] == "user:olga-operator"
    assert read["probe"]["state"] == "conforms" and read["probe"]["actor"] == "user:olga-operator"
    probe_request_task.apply(args=[asked.pk])  # delivered twice: a no-op
    assert Probe.objects.count() == 1
    assert reader.get(f"{URL}prod-eu/probes/99999").status_code == 404
    assert reader.get("/api/v1/routes/contract-summaries/endpoints/nope/probes/1").status_code == 404


def test_a_broker_that_is_down_is_a_503_problem_and_nothing_is_probed(
    live: Any, operator: Any, settings: Any, sends_through_the_broker: None
) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"  # nothing listens there
    response = as_caller("operator", operator).client().post(URL + "prod-eu/probe")
    assert response.status_code == 503, response.content
    assert response["Content-Type"].startswith(PROBLEM)
    assert response.json()["code"] == "broker_unavailable"
    assert ProbeRequest.objects.get().state == "failed" and not Probe.objects.exists()


def test_a_viewer_may_not_ask_for_a_probe(live: Any, viewer: Any) -> None:
    response = as_caller("viewer", viewer).client().post(URL + "prod-eu/probe")
    assert response.status_code == 403 and not ProbeRequest.objects.exists()


def test_the_scheduled_probes_are_beats(live: Any) -> None:
    probe_endpoints()
    assert Probe.objects.get().actor == "beat"
    assert AuditEvent.objects.get(action="drift.state_changed").actor_label == "beat"


def test_the_page_button_queues_at_once_and_the_table_shows_the_probe_when_done(
    live: Any, operator: Any, viewer: Any, protocol: Any, sends_through_the_broker: None
) -> None:
    page = Client()
    page.force_login(operator)
    answered = page.post("/routes/contract-summaries/endpoints/prod-eu/probe", follow=True)
    html = answered.content.decode()
    assert "Probe of prod-eu queued" in html and "probe queued (asked by user:olga-operator)" in html
    assert 'hx-trigger="every 2s"' in html  # the table refreshes itself while it runs
    probe_request_task.apply(args=[ProbeRequest.objects.get().pk])
    table = page.get("/routes/contract-summaries/endpoints/table").content.decode()
    assert "prod-eu conforms (probed" in table and "hx-trigger" not in table
    watching = Client()
    watching.force_login(viewer)
    assert "Probe now" not in watching.get("/routes/contract-summaries/").content.decode()
    assert watching.post("/routes/contract-summaries/endpoints/prod-eu/probe").status_code == 403
