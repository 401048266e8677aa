"""A probe's per-field facts and coverage words are stored with it and returned by the API
(`…/endpoints/{name}/probe`, the endpoint's detail, its list row)."""

from __future__ import annotations

from typing import Any

from live_app.models import Probe
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.launcher import reserved_port

URL = "/api/v1/routes/contract-summaries/endpoints/"


def test_the_probe_stores_and_returns_its_facts_and_coverage(
    route_v1: Any, operator: Any, viewer: Any, emulator: Any
) -> None:
    live = emulator(*vllm_claim())  # no dev mode: /metrics says k and that it speculates
    client = as_caller("operator", operator).client()
    body = {"name": "prod-eu", "base_url": live.base_url, "engine": "vllm", "expects": "active"}
    assert client.post(URL, body, format="json").status_code == 201
    probe = client.post(URL + "prod-eu/probe").json()
    assert probe["state"] == "conforms", probe
    states = {f["field"]: f["state"] for f in probe["facts"]}
    assert states["speculation.num_speculative_tokens"] == "verified"
    assert states["speculation.method"] == "speculates"
    assert states["speculation.params.prompt_lookup_max"] == "not_reported"
    verified = sum(1 for s in states.values() if s == "verified")
    assert probe["coverage"].startswith(f"{verified} of {len(states)} fields verified; ")
    assert probe["coverage"].endswith(
        "vLLM 0.24.0 does not report speculation.params.prompt_lookup_min, "
        "speculation.params.prompt_lookup_max"
    )
    stored = Probe.objects.get()
    assert stored.coverage == probe["coverage"] and stored.facts == probe["facts"]
    viewing = as_caller("viewer", viewer).client()
    detail = viewing.get(URL + "prod-eu/").json()
    assert detail["last_probe"]["coverage"] == probe["coverage"]
    assert detail["last_probe"]["facts"] == probe["facts"]
    (row,) = viewing.get(URL).json()
    assert row["last_probe"]["coverage"] == probe["coverage"]
    assert "facts" not in row["last_probe"]  # the list stays small, as without the evidence


def test_a_refused_endpoint_is_not_reached_in_its_coverage(route_v1: Any, operator: Any) -> None:
    client = as_caller("operator", operator).client()
    with reserved_port() as port:
        body = {"name": "prod-eu", "base_url": f"http://127.0.0.1:{port}", "engine": "vllm",
                "expects": "active"}  # fmt: skip
        assert client.post(URL, body, format="json").status_code == 201
        probe = client.post(URL + "prod-eu/probe").json()
    assert probe["state"] == "unknown" and probe["reached"] is False
    assert probe["reason"].startswith("not reached: ") and probe["coverage"].startswith("not reached")
    assert {f["state"] for f in probe["facts"]} == {"not_reached"}
