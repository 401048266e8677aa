"""A standalone run against two live endpoints: both probed first; a drifted candidate
stops it with the reason and nothing is created; conforming ones make an `openai` run
that the worker's harness benchmarks like any other, and the result lands like any other."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from benchmarks_app.models import Run
from live_app.services import endpoint_create, endpoints_run_create
from releases_app.services import release_create
from releases_app.services.endpoints import endpoint_register
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.benchmarked import NO_BROKER, run_as_specified
from tests.support.releases import route_identity_change
from tests.support.workers import SMALL_LOAD

DEV = {"VLLM_SERVER_DEV_MODE": "1"}
URL = "/api/v1/routes/contract-summaries/endpoints/benchmark"


@pytest.fixture
def canary_release(route_v1: Any, proposer: Any) -> Any:
    """Version 2 (3 speculative tokens instead of 5) proposed: its release is open."""
    v2 = route_identity_change(route_v1, tokens=3)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        return release_create(route=route_v1, candidate_version=v2.number, actor=proposer)


def _register(route: Any, operator: Any, release: Any, prod: Any, canary: Any) -> None:
    endpoint_create(route=route, name="prod-eu", base_url=prod.base_url, engine="vllm", actor=operator)
    endpoint_register(route=route, name="canary", base_url=canary.base_url, engine="vllm",
                      expects=f"release:{release.pk}", actor=operator)  # fmt: skip


def test_a_drifted_candidate_endpoint_stops_the_run_with_the_reason(
    route_v1: Any, operator: Any, canary_release: Any, emulator: Any
) -> None:
    prod = emulator(*vllm_claim(), env=DEV)
    canary = emulator(*vllm_claim(), env=DEV)  # still 5 tokens: not the release's 3
    _register(route_v1, operator, canary_release, prod, canary)
    runs_before = Run.objects.count()
    response = (
        as_caller("operator", operator)
        .client()
        .post(URL, {"baseline": "prod-eu", "candidate": "canary", "lane": "extraction"}, format="json")
    )
    assert response.status_code == 409, response.content
    assert "canary drifted: speculation.num_speculative_tokens 5 ≠ 3" in response.json()["detail"]
    assert Run.objects.count() == runs_before


def test_conforming_endpoints_are_benchmarked_by_the_harness(
    route_v1: Any, operator: Any, canary_release: Any, emulator: Any
) -> None:
    prod = emulator(*vllm_claim(), "--pattern", "1", env=DEV)
    canary = emulator(*vllm_claim(num_speculative_tokens=3), "--pattern", "3", env=DEV)
    _register(route_v1, operator, canary_release, prod, canary)
    run = endpoints_run_create(route=route_v1, baseline="prod-eu", candidate="canary", lane="extraction",
                               overrides=SMALL_LOAD, actor=operator)  # fmt: skip
    assert run.engine_kind == "openai" and run.release_id is None
    assert (run.baseline_version.number, run.candidate_version.number) == (1, 2)
    assert run.spec["arms"]["candidate"]["engine"]["base_url"] == canary.base_url
    run_as_specified(run)
    run.refresh_from_db()
    assert run.state == "succeeded"
    level = run.result.aggregates["candidate"][0]
    truth = canary.counters()  # every request streams the same steps: the ratio is each one's
    expected = truth["accepted_tokens"] / truth["draft_tokens"]
    assert level["scalars"]["acceptance_rate"] == pytest.approx(expected, rel=1e-3)
