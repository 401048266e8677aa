"""Drift on the pages: the route page lists endpoints and their state, checklist question 1
says what runs, the overview and the fleet view show drifted endpoints, and the route page
charts live acceptance with the benchmark as reference."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from live_app.services import endpoint_create, endpoint_probe
from tests.live.conftest import stream, vllm_claim

DEV = {"VLLM_SERVER_DEV_MODE": "1"}


def _client(viewer: Any) -> Client:
    client = Client()
    client.force_login(viewer)
    return client


def test_drift_shows_on_the_route_page_checklist_overview_and_fleet(
    route_v1: Any, operator: Any, viewer: Any, emulator: Any
) -> None:
    good, bad = emulator(*vllm_claim(), env=DEV), emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    for name, emu in (("prod-eu", good), ("canary", bad)):
        endpoint = endpoint_create(
            route=route_v1, name=name, base_url=emu.base_url, engine="vllm", actor=operator
        )
        stream(emu, 2)
        endpoint_probe(endpoint=endpoint, actor=operator)
        stream(emu, 2)
        endpoint_probe(endpoint=endpoint, actor=operator)
    client = _client(viewer)
    page = client.get("/routes/contract-summaries/").content.decode()
    assert 'id="endpoints"' in page
    assert "canary drifted: num_speculative_tokens 3 ≠ 5" in page
    assert "prod-eu conforms (probed" in page
    assert page.count('data-plotly="chart-live-') == 2

    checklist = client.get("/api/v1/routes/contract-summaries/checklist").json()
    q1 = checklist["answers"][0]
    assert "Live: " in q1["answer"] and "canary drifted: num_speculative_tokens 3 ≠ 5" in q1["answer"]
    assert q1["status"] == "partial"

    for url in ("/", "/fleet/"):
        body = client.get(url).content.decode()
        assert (
            'id="live-drift"' in body
            and "canary drifted" in body
            and "prod-eu" not in body.split('id="live-drift"')[1].split("</div>")[0]
        )


def test_the_acceptance_chart_has_the_live_series(
    route_v1: Any, operator: Any, viewer: Any, emulator: Any
) -> None:
    emu = emulator(*vllm_claim(), env=DEV)
    endpoint = endpoint_create(
        route=route_v1, name="prod-eu", base_url=emu.base_url, engine="vllm", actor=operator
    )
    for _ in range(3):
        stream(emu, 2)
        endpoint_probe(endpoint=endpoint, actor=operator)
    page = _client(viewer).get("/routes/contract-summaries/").content.decode()
    start = page.index('data-plotly="chart-live-')
    figure = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    live = next(t for t in figure["data"] if t["name"] == "live (per window)")
    assert len(live["y"]) == 2 and all(abs(y - 2 / 5) < 1e-9 for y in live["y"])  # pattern 3 of 5 drafted


def test_the_route_page_reads_endpoints_in_constant_queries(
    route_v1: Any, operator: Any, viewer: Any, emulator: Any
) -> None:
    from tests.support.query_counts import assert_num_queries

    client = _client(viewer)
    emu = emulator(*vllm_claim(), env=DEV)

    def add(name: str) -> None:
        endpoint = endpoint_create(
            route=route_v1, name=name, base_url=emu.base_url, engine="vllm", actor=operator
        )
        for _ in range(2):
            stream(emu, 1)
            endpoint_probe(endpoint=endpoint, actor=operator)

    add("prod-eu")
    client.get("/routes/contract-summaries/")  # the session row exists from here on
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as one:
        assert client.get("/routes/contract-summaries/").status_code == 200
    add("canary")
    add("eu-west")
    with assert_num_queries(len(one.captured_queries)):
        assert client.get("/routes/contract-summaries/").status_code == 200
