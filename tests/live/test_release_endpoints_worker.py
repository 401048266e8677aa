"""End to end with real processes: a live API server, a private Redis broker, a
`specpact-worker run` agent (Celery) and two vLLM-shaped endpoints, the canary behind an
API key. A release proposed on the endpoints waits for its canary, is probed, benchmarked by
the worker through its `openai` engine (the token read from the worker's own environment,
never from the run) and concluded by the gate to a verdict; with a drifted candidate it
stops with the reason and nothing is dispatched."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from benchmarks_app.choices import FINISHED_STATES
from benchmarks_app.models import Run
from live_app.services import endpoint_create
from live_app.services.bindings import binding_create
from releases_app.models import Release
from releases_app.services.endpoints import endpoint_change, endpoint_register
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.factories import make_version, variant
from tests.support.launcher import wait_for
from tests.support.processes import Agent, RedisServer
from worker.secrets import url_host

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

DEV = {"VLLM_SERVER_DEV_MODE": "1"}
TOKEN_ENV = "SPECPACT_ENDPOINT_CANARY_TOKEN"
SMALL = {"extraction": {"dataset": "builtin:extraction", "concurrency": [1, 2], "requests_per_level": 4,
                        "max_tokens": 12}}  # fmt: skip


@pytest.fixture
def release(route_v1: Any, proposer: Any, operator: Any, emulator: Any) -> Release:
    """Version 2 (3 speculative tokens instead of 5) proposed on prod-eu and canary."""
    doc = variant(
        route_v1.active_version.document,
        **{"speculation.num_speculative_tokens": 3, "measurement.workloads": SMALL},
    )
    v2 = make_version(route_v1, doc)
    prod = emulator(*vllm_claim(), "--pattern", "1", "--step-ms", "20", env=DEV)
    endpoint_create(route=route_v1, name="prod-eu", base_url=prod.base_url, engine="vllm", actor=operator)
    body = {"route": route_v1.slug, "candidate_version": v2.number,
            "endpoints": {"baseline": "prod-eu", "candidate": "canary"}}  # fmt: skip
    response = as_caller("operator", proposer).client().post("/api/v1/releases/", body, format="json")
    assert response.status_code == 201, response.content
    return Release.objects.get(pk=response.json()["id"])


def _agent(agents: Callable[..., Agent], url: str) -> Agent:
    agent = agents(url, "w1")
    agent.worker_id()
    agent.wait_ready()
    return agent


def _benchmark(operator: Any, release: Release) -> Any:
    return as_caller("operator", operator).client().post(f"/api/v1/releases/{release.pk}/benchmark")


def test_a_release_on_two_endpoints_runs_through_the_worker_to_a_verdict(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    route_v1: Any,
    operator: Any,
    admin: Any,
    release: Release,
    emulator: Any,
    monkeypatch: Any,
) -> None:
    secret = "canary-bearer-7f3a"
    monkeypatch.setenv(TOKEN_ENV, secret)  # the control plane's (probes) and, inherited, the worker's
    canary_emu = emulator(*vllm_claim(num_speculative_tokens=3), "--pattern", "3", "--step-ms", "20",
                          "--api-key", secret, env=DEV)  # fmt: skip
    # An admin binds the secret to the canary's host; the operator picks the binding.
    binding_create(route=route_v1, name="canary-token", kind="env", reference=TOKEN_ENV,
                   hosts=[url_host(canary_emu.base_url)], actor=admin)  # fmt: skip
    canary = endpoint_create(route=route_v1, name="canary", base_url=canary_emu.base_url, engine="vllm",
                             auth={"binding": "canary-token"}, actor=operator)  # fmt: skip
    endpoint_change(
        endpoint=canary, expects=f"release:{release.pk}", actor=operator
    )  # deployed: point it here
    agent = _agent(agents, live_server.url)

    response = _benchmark(operator, release)
    assert response.status_code == 200, response.content
    assert response.json()["state"] == "benchmarking"

    def concluded() -> Release | None:
        fresh = Release.objects.get(pk=release.pk)
        return fresh if fresh.state != "benchmarking" else None

    try:
        done = wait_for(concluded, 180, f"release {release.pk} to conclude")
    except AssertionError:
        raise AssertionError(f"agent log:\n{agent.log.read_text()[-4000:]}") from None
    assert done.state == "awaiting_review", done.failure_reason
    assert done.gate_verdict in {"pass", "marginal", "fail"} and done.gate_result
    (run,) = Run.objects.filter(release=done)
    assert run.state in FINISHED_STATES and run.engine_kind == "openai" and run.worker is not None
    assert secret not in str(run.spec)
    payload = run.result.payload
    candidate = [r for level in payload["candidate"]["levels"] for r in level["requests"]]
    assert candidate and all(r["error"] is None for r in candidate)  # every request carried the token
    assert canary_emu.counters()["accepted_tokens"] > 0  # the canary, not the baseline, served them
    speculation = payload["candidate"]["levels"][0]["speculation"]  # read from the canary's /metrics
    assert speculation["reported"] and speculation["acceptance_rate"] is not None


def test_a_drifted_candidate_endpoint_stops_the_release_with_the_reason(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    route_v1: Any,
    operator: Any,
    release: Release,
    emulator: Any,
) -> None:
    drifted = emulator(*vllm_claim(), env=DEV)  # the canary still runs 5 speculative tokens
    endpoint_register(route=route_v1, name="canary", base_url=drifted.base_url, engine="vllm",
                      expects=f"release:{release.pk}", actor=operator)  # fmt: skip
    _agent(agents, live_server.url)
    response = _benchmark(operator, release)
    assert response.status_code == 409
    assert "canary drifted: speculation.num_speculative_tokens 5 ≠ 3" in response.json()["detail"]
    fresh = Release.objects.get(pk=release.pk)
    assert fresh.state == "proposed" and not Run.objects.filter(release=fresh).exists()
    detail = as_caller("operator", operator).client().get(f"/api/v1/releases/{release.pk}/").json()
    assert "Last refused: Not benchmarked: canary drifted" in detail["waiting_for_endpoints"]
