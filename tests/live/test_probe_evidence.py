"""A probe keeps facts, never what it was answered: pointed at an internal service that is
not an engine, nothing of that service's text reaches the stored probe, the API, the
route page or the audit trail; stored bodies from before are scrubbed by the migration."""

from __future__ import annotations

import importlib
import json
from typing import Any

from django.apps import apps
from django.test import Client
from django.utils import timezone

from audit_app.models import AuditEvent
from live_app.models import Endpoint, Probe
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.slow_servers import internal_service

URL = "/api/v1/routes/contract-summaries/endpoints/"
DEV = {"VLLM_SERVER_DEV_MODE": "1"}
MARKER = "MARKER-internal-7f3a9c"


def test_an_internal_services_answer_is_nowhere_in_the_probe_the_api_or_the_page(
    route_v1: Any, operator: Any, viewer: Any, emulator: Any
) -> None:
    engine = emulator(*vllm_claim(), env=DEV)
    with internal_service(MARKER) as (internal, asked):
        client = as_caller("operator", operator).client()
        # The same host as the engine, another port: allowed, so the probe reads it.
        body = {"name": "prod-eu", "base_url": engine.base_url, "engine": "vllm",
                "metrics_url": internal + "/metrics"}  # fmt: skip
        assert client.post(URL, body, format="json").status_code == 201
        answered = client.post(URL + "prod-eu/probe")
        as_engine = {**body, "name": "other", "base_url": internal, "metrics_url": ""}
        again = client.post(URL, as_engine, format="json")
        assert again.status_code == 201
        other = client.post(URL + "other/probe")
    assert "/metrics" in asked and "/v1/models" in asked  # it was read, and answered the marker
    assert answered.status_code == other.status_code == 200, answered.content
    metrics = answered.json()["evidence"]["metrics"]
    assert metrics["status"] == 200 and metrics["url"] == internal + "/metrics"
    assert set(metrics) <= {"url", "status", "failure", "fields", "absent"}

    stored = [
        json.dumps([p.evidence, p.reason, p.differences, p.unknown], default=str) for p in Probe.objects.all()
    ]
    assert len(stored) == 2 and not any(MARKER in s for s in stored)
    trail = json.dumps(list(AuditEvent.objects.values("before", "after", "reason")), default=str)
    assert MARKER not in trail
    viewer_client = as_caller("viewer", viewer).client()
    for url in (URL, URL + "prod-eu/", URL + "other/"):
        assert MARKER not in viewer_client.get(url).content.decode()
    assert MARKER not in answered.content.decode() and MARKER not in other.content.decode()
    page = Client()
    page.force_login(viewer)
    assert MARKER not in page.get("/routes/contract-summaries/").content.decode()


def test_the_evidence_names_the_fields_compared_and_those_absent(
    route_v1: Any, operator: Any, emulator: Any
) -> None:
    engine = emulator(*vllm_claim(), env={})  # no dev mode: no /server_info
    client = as_caller("operator", operator).client()
    client.post(URL, {"name": "prod-eu", "base_url": engine.base_url, "engine": "vllm"}, format="json")
    evidence = client.post(URL + "prod-eu/probe").json()["evidence"]
    assert evidence["v1_models"]["fields"]["data[0].id"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert evidence["server_info"]["status"] == 404 and "fields" not in evidence["server_info"]
    counted = evidence["metrics"]["fields"]
    assert counted["vllm:spec_decode_num_draft_tokens_total"] == 0.0  # no traffic yet
    assert counted["vllm:spec_decode_num_accepted_tokens_per_pos_total{position} count"] == 5


def test_the_migration_scrubs_the_bodies_stored_before(route_v1: Any, operator: Any) -> None:
    endpoint = Endpoint.objects.create(
        route=route_v1, name="prod-eu", base_url="http://127.0.0.1:9", engine="sglang", expects="active"
    )
    old = {
        "server_info": {
            "url": "http://127.0.0.1:9/server_info",
            "status": 200,
            "body": MARKER,
            "body_truncated": True,
        },
        "metrics": {"url": "http://127.0.0.1:9/metrics", "status": 200, "body": f"spec {MARKER}"},
        "internal_states": [{"avg_spec_accept_length": 2.1, "note": MARKER}],
    }
    probe = Probe.objects.create(endpoint=endpoint, state="unknown", evidence=old, probed_at=timezone.now())
    migration = importlib.import_module("live_app.migrations.0006_scrub_probe_bodies")
    migration.scrub(apps, None)
    probe.refresh_from_db()
    assert MARKER not in json.dumps(probe.evidence)
    assert probe.evidence == {
        "server_info": {"url": "http://127.0.0.1:9/server_info", "status": 200},
        "metrics": {"url": "http://127.0.0.1:9/metrics", "status": 200},
    }
