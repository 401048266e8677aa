"""A release benchmarked against two live endpoints: proposed naming them, it waits in
`proposed` until its canary expects it; `POST releases/{id}/benchmark` probes both, a
drifted one refuses with the reason and the release keeps waiting; conforming ones start
`openai` runs the worker's harness benchmarks like any other, the gate concludes, and an
endpoint that drifted meanwhile fails the release with the reason."""

from __future__ import annotations

from typing import Any

import pytest

from audit_app.models import AuditEvent
from benchmarks_app.models import Run
from live_app.models import Endpoint
from live_app.services import endpoint_create
from live_app.services.bindings import binding_create
from releases_app.models import Release
from releases_app.services.endpoints import endpoint_register
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.benchmarked import run_as_specified
from tests.support.factories import make_version, variant
from worker.agent.execute import execute
from worker.harness.endpoint_auth import EndpointAuthError
from worker.secrets import url_host
from worker.spec import RunSpec

DEV = {"VLLM_SERVER_DEV_MODE": "1"}
ENDPOINTS = "/api/v1/routes/contract-summaries/endpoints/"
# One small lane, so the emulators answer a whole release benchmark in seconds.
SMALL = {"extraction": {"dataset": "builtin:extraction", "concurrency": [1, 2], "requests_per_level": 3,
                        "max_tokens": 8}}  # fmt: skip
NAMES = {"baseline": "prod-eu", "candidate": "canary"}


@pytest.fixture
def v2(route_v1: Any) -> Any:
    """The candidate: 3 speculative tokens instead of 5, measured on one small lane."""
    doc = variant(
        route_v1.active_version.document,
        **{"speculation.num_speculative_tokens": 3, "measurement.workloads": SMALL},
    )
    return make_version(route_v1, doc)


@pytest.fixture
def prod(route_v1: Any, operator: Any, emulator: Any) -> Any:
    emu = emulator(*vllm_claim(), "--pattern", "1", env=DEV)
    endpoint_create(route=route_v1, name="prod-eu", base_url=emu.base_url, engine="vllm", actor=operator)
    return emu


def _propose(proposer: Any, v2: Any, **body: Any) -> Any:
    payload = {"route": "contract-summaries", "candidate_version": v2.number, "endpoints": NAMES, **body}
    return as_caller("operator", proposer).client().post("/api/v1/releases/", payload, format="json")


def _benchmark(operator: Any, release_id: int, **body: Any) -> Any:
    client = as_caller("operator", operator).client()
    return client.post(f"/api/v1/releases/{release_id}/benchmark", body, format="json")


def _canary(route: Any, operator: Any, release_id: int, emu: Any, **extra: Any) -> Endpoint:
    return endpoint_register(route=route, name="canary", base_url=emu.base_url, engine="vllm",
                             expects=f"release:{release_id}", actor=operator, **extra)  # fmt: skip


def test_a_release_proposed_with_endpoints_waits_for_them(
    route_v1: Any, proposer: Any, v2: Any, prod: Any
) -> None:
    response = _propose(proposer, v2)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["state"] == "proposed" and body["endpoints"] == NAMES
    assert f"canary must expect release:{body['id']}" in body["waiting_for_endpoints"]
    assert f"POST /api/v1/releases/{body['id']}/benchmark" in body["waiting_for_endpoints"]
    assert not Run.objects.filter(release_id=body["id"]).exists()
    proposed = AuditEvent.objects.get(action="release.proposed", object_id=str(body["id"]))
    assert proposed.after["endpoints"] == NAMES


@pytest.mark.parametrize(
    ("endpoints", "path"),
    [
        ("prod-eu", "endpoints"),
        ({"baseline": "prod-eu"}, "endpoints"),
        ({"baseline": "prod-eu", "candidate": "canary", "extra": "x"}, "endpoints"),
        ({"baseline": "nowhere", "candidate": "canary"}, "endpoints.baseline"),
        ({"baseline": "prod-eu", "candidate": "prod-eu"}, "endpoints.candidate"),
        ({"baseline": ["prod-eu"], "candidate": "canary"}, "endpoints.baseline"),
        ({"baseline": "prod-eu", "candidate": "x" * 41}, "endpoints.candidate"),
        ({"baseline": "prod-eu", "candidate": "<b>Canary</b>"}, "endpoints.candidate"),
        ({"baseline": "prod-eu", "candidate": ""}, "endpoints.candidate"),
    ],
)
def test_bad_endpoints_at_proposal_are_refused_naming_the_field(
    route_v1: Any, proposer: Any, v2: Any, prod: Any, endpoints: Any, path: str
) -> None:
    before = Release.objects.count()
    response = _propose(proposer, v2, endpoints=endpoints)
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert any(e["path"].startswith(path) for e in response.json()["errors"]), response.json()
    assert Release.objects.count() == before


def test_the_candidate_may_serve_the_active_version_until_pointed_but_the_baseline_must(
    route_v1: Any, proposer: Any, operator: Any, v2: Any, prod: Any, emulator: Any
) -> None:
    emu = emulator(*vllm_claim(), env=DEV)
    endpoint_create(route=route_v1, name="canary", base_url=emu.base_url, engine="vllm", actor=operator)
    first = _propose(proposer, v2)  # canary still serves the active version: it is pointed later
    assert first.status_code == 201, first.content
    release_id = first.json()["id"]
    as_caller("operator", operator).client().patch(
        ENDPOINTS + "canary/", {"expects": f"release:{release_id}"}, format="json"
    )
    cancel = (
        as_caller("operator", proposer)
        .client()
        .post(f"/api/v1/releases/{release_id}/cancel", {"reason": "wrong baseline"}, format="json")
    )
    assert cancel.status_code == 200, cancel.content
    response = _propose(proposer, v2, endpoints={"baseline": "canary", "candidate": "prod-eu"})
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["path"] == "endpoints.baseline"
    assert (
        error["message"]
        == f"canary expects release:{release_id}; the baseline endpoint serves the active version"
    )


def test_a_release_that_needs_no_benchmark_takes_no_endpoints(
    route_v1: Any, proposer: Any, prod: Any
) -> None:
    cosmetic = make_version(route_v1, variant(route_v1.active_version.document, description="Reworded."))
    response = _propose(proposer, cosmetic)
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "endpoints"
    assert "cosmetic" in response.json()["errors"][0]["message"]


def test_a_drifted_candidate_endpoint_stops_the_benchmark_with_the_reason(
    route_v1: Any, proposer: Any, operator: Any, v2: Any, prod: Any, emulator: Any
) -> None:
    release_id = _propose(proposer, v2).json()["id"]
    _canary(route_v1, operator, release_id, emulator(*vllm_claim(), env=DEV))  # still 5 tokens, not 3
    response = _benchmark(operator, release_id)
    assert response.status_code == 409, response.content
    detail = response.json()["detail"]
    assert "canary drifted: speculation.num_speculative_tokens 5 ≠ 3" in detail
    assert "prod-eu" not in detail  # the baseline conforms
    release = Release.objects.get(pk=release_id)
    assert release.state == "proposed" and not Run.objects.filter(release_id=release_id).exists()
    refused = AuditEvent.objects.get(action="release.benchmark_refused")
    assert "canary drifted" in refused.reason
    shown = as_caller("operator", operator).client().get(f"/api/v1/releases/{release_id}/").json()
    assert "Last refused: Not benchmarked: canary drifted" in shown["waiting_for_endpoints"]


def test_a_candidate_endpoint_that_expects_something_else_is_named(
    route_v1: Any, proposer: Any, operator: Any, v2: Any, prod: Any, emulator: Any
) -> None:
    release_id = _propose(proposer, v2).json()["id"]
    emu = emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    endpoint_create(route=route_v1, name="canary", base_url=emu.base_url, engine="vllm", actor=operator)
    response = _benchmark(operator, release_id)
    assert response.status_code == 409
    assert (
        f"canary expects active; the candidate endpoint of release {release_id} expects "
        in (response.json()["detail"])
    )
    # Pointing it at the release (PATCH) is the fix; the state waits for the next probe.
    patched = (
        as_caller("operator", operator)
        .client()
        .patch(ENDPOINTS + "canary/", {"expects": f"release:{release_id}"}, format="json")
    )
    assert patched.status_code == 200, patched.content
    assert patched.json()["expects"] == f"release:{release_id}" and patched.json()["state"] == "unknown"
    assert AuditEvent.objects.filter(action="endpoint.updated").count() == 1
    assert _benchmark(operator, release_id).status_code == 200


def test_conforming_endpoints_are_benchmarked_to_a_verdict(
    route_v1: Any, proposer: Any, operator: Any, v2: Any, prod: Any, emulator: Any
) -> None:
    release_id = _propose(proposer, v2).json()["id"]
    canary = emulator(*vllm_claim(num_speculative_tokens=3), "--pattern", "3", env=DEV)
    _canary(route_v1, operator, release_id, canary)
    response = _benchmark(operator, release_id)
    assert response.status_code == 200, response.content
    assert response.json()["state"] == "benchmarking" and response.json()["waiting_for_endpoints"] is None
    assert _benchmark(operator, release_id).status_code == 409  # started once
    (run,) = Run.objects.filter(release_id=release_id)
    assert run.engine_kind == "openai" and run.lane == "extraction"
    arms = run.spec["arms"]
    assert (arms["baseline"]["engine"]["base_url"], arms["candidate"]["engine"]["base_url"]) == (
        prod.base_url,
        canary.base_url,
    )
    run_as_specified(run)
    release = Release.objects.get(pk=release_id)
    assert release.state == "awaiting_review", release.failure_reason
    assert release.gate_verdict in {"pass", "marginal", "fail"}
    run.refresh_from_db()
    assert run.result.aggregates["candidate"][0]["scalars"]["acceptance_rate"] is not None


def test_an_endpoint_that_drifts_during_the_benchmark_fails_the_release(
    route_v1: Any, proposer: Any, operator: Any, v2: Any, prod: Any, emulator: Any
) -> None:
    release_id = _propose(proposer, v2).json()["id"]
    _canary(route_v1, operator, release_id, emulator(*vllm_claim(num_speculative_tokens=3), env=DEV))
    assert _benchmark(operator, release_id).status_code == 200
    (run,) = Run.objects.filter(release_id=release_id)
    # While it runs, the canary is redeployed with the old settings behind the same name.
    redeployed = emulator(*vllm_claim(), env=DEV)
    Endpoint.objects.filter(name="canary").update(base_url=redeployed.base_url)
    run_as_specified(run)
    release = Release.objects.get(pk=release_id)
    assert release.state == "failed"
    assert "the endpoints changed during the benchmark" in release.failure_reason
    assert "canary drifted: speculation.num_speculative_tokens 5 ≠ 3" in release.failure_reason


def test_an_endpoints_auth_goes_to_the_worker_as_its_binding_only(
    route_v1: Any,
    proposer: Any,
    operator: Any,
    admin: Any,
    v2: Any,
    prod: Any,
    emulator: Any,
    monkeypatch: Any,
) -> None:
    secret = "s3cret-canary-token"
    monkeypatch.setenv("SPECPACT_ENDPOINT_CANARY_TOKEN", secret)
    release_id = _propose(proposer, v2).json()["id"]
    canary = emulator(*vllm_claim(num_speculative_tokens=3), "--api-key", secret, env=DEV)
    binding_create(
        route=route_v1,
        name="canary-token",
        kind="env",
        reference="SPECPACT_ENDPOINT_CANARY_TOKEN",
        hosts=[url_host(canary.base_url)],
        actor=admin,
    )
    _canary(route_v1, operator, release_id, canary, auth={"binding": "canary-token"})
    assert _benchmark(operator, release_id).status_code == 200  # the probe sent the token
    (run,) = Run.objects.filter(release_id=release_id)
    engine = run.spec["arms"]["candidate"]["engine"]
    assert engine["auth_binding"] == {
        "route": "contract-summaries", "name": "canary-token", "kind": "env",
        "reference": "SPECPACT_ENDPOINT_CANARY_TOKEN", "hosts": [url_host(canary.base_url)],
    }  # fmt: skip
    assert engine.get("api_key") is None and engine.get("api_key_env") is None
    assert secret not in str(run.spec) and secret not in str(run.endpoints)
    monkeypatch.delenv("SPECPACT_ENDPOINT_CANARY_TOKEN")
    with pytest.raises(EndpointAuthError, match="set SPECPACT_ENDPOINT_CANARY_TOKEN"):
        execute(RunSpec.model_validate(run.spec), lambda *_: None)
    monkeypatch.setenv("SPECPACT_ENDPOINT_CANARY_TOKEN", secret)  # the worker has it: requests pass
    run_as_specified(run)
    run.refresh_from_db()
    assert run.state == "succeeded", run.last_error
    levels = run.result.payload["candidate"]["levels"]
    assert all(r["error"] is None for level in levels for r in level["requests"])


def test_who_may_start_it_and_what_else_is_refused(
    route_v1: Any, proposer: Any, operator: Any, viewer: Any, v2: Any, prod: Any
) -> None:
    release_id = _propose(proposer, v2).json()["id"]
    assert _benchmark(viewer, release_id).status_code == 403
    assert _benchmark(operator, 999999).status_code == 404
    response = _benchmark(operator, release_id, candidate="nowhere")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "endpoints.candidate"
    bad = _benchmark(operator, release_id, baseline=["x"])
    assert bad.status_code == 400
    assert Release.objects.get(pk=release_id).state == "proposed"


def test_patching_an_endpoint_checks_each_field(route_v1: Any, operator: Any, viewer: Any, prod: Any) -> None:
    client = as_caller("operator", operator).client()
    for body, path in [
        ({"expects": "release:99999"}, "expects"),
        ({"base_url": "http://169.254.169.254/"}, "base_url"),
        ({"engine": "triton"}, "engine"),
        ({"auth": {"env": "SECRET_KEY"}}, "auth"),
    ]:
        response = client.patch(ENDPOINTS + "prod-eu/", body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert response.json()["errors"][0]["path"] == path
    assert (
        as_caller("viewer", viewer).client().patch(ENDPOINTS + "prod-eu/", {}, format="json").status_code
        == 403
    )
    assert client.patch(ENDPOINTS + "nowhere/", {}, format="json").status_code == 404
    assert not AuditEvent.objects.filter(action="endpoint.updated").exists()


def test_two_trickling_endpoints_hold_the_request_one_probe_limit_not_two(
    route_v1: Any, proposer: Any, operator: Any, v2: Any, emulator: Any, settings: Any
) -> None:
    import time

    settings.ENDPOINT_PROBE_TIMEOUT_S = 2
    endpoint_create(route=route_v1, name="prod-eu", base_url=emulator("--hostile", "trickle").base_url,
                    engine="vllm", actor=operator)  # fmt: skip
    release_id = _propose(proposer, v2).json()["id"]
    _canary(route_v1, operator, release_id, emulator("--hostile", "trickle"))
    started = time.monotonic()
    response = _benchmark(operator, release_id)
    assert time.monotonic() - started < 3.5  # both probed at once, each within its 2 s
    # Neither engine could be read: not benchmarked (its requests would only fail), and the
    # release keeps waiting; the probes are stored with the reason.
    assert response.status_code == 409, response.content
    assert "prod-eu could not be read" in response.json()["detail"]
    assert "canary could not be read" in response.json()["detail"]
    assert Release.objects.get(pk=release_id).state == "proposed"
    probes = [e.last_probe for e in Endpoint.objects.select_related("last_probe")]
    assert all(not p.reached and "within" in p.reason for p in probes)


@pytest.mark.parametrize(
    "body",
    [
        {"endpoints": {"baseline": "prod-eu\x00", "candidate": "canary"}},
        {"endpoints": {"baseline": "prod-eu", "candidate": "ca\u202enary"}},
        {"endpoints": {"baseline": {"$gt": ""}, "candidate": "canary"}},
        {"endpoints": [["baseline", "prod-eu"]]},
        {"endpoints": None},
        {"endpoints": {"baseline": "prod-eu", "candidate": "canary" * 10_000}},
    ],
)
def test_hostile_endpoints_at_proposal_get_a_4xx_and_write_nothing(
    route_v1: Any, proposer: Any, v2: Any, prod: Any, body: dict[str, Any]
) -> None:
    before = (Release.objects.count(), AuditEvent.objects.count())
    response = _propose(proposer, v2, **body)
    assert 400 <= response.status_code < 500, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert (Release.objects.count(), AuditEvent.objects.count()) == before


@pytest.mark.parametrize(
    "body",
    [{"baseline": "\x00"}, {"candidate": {"a": 1}}, {"baseline": "p" * 5000}, {"candidate": "../../etc"}, []],
)
def test_hostile_benchmark_bodies_get_a_4xx(
    route_v1: Any, proposer: Any, operator: Any, v2: Any, prod: Any, body: Any
) -> None:
    release_id = _propose(proposer, v2).json()["id"]
    client = as_caller("operator", operator).client()
    response = client.post(f"/api/v1/releases/{release_id}/benchmark", body, format="json")
    assert 400 <= response.status_code < 500, response.content
    assert Release.objects.get(pk=release_id).state == "proposed"


def test_the_route_page_links_a_canary_to_the_release_it_serves(
    route_v1: Any, proposer: Any, operator: Any, viewer: Any, v2: Any, prod: Any, emulator: Any
) -> None:
    release_id = _propose(proposer, v2).json()["id"]
    _canary(route_v1, operator, release_id, emulator(*vllm_claim(num_speculative_tokens=3), env=DEV))
    page = as_caller("viewer", viewer).client().get("/routes/contract-summaries/").content.decode()
    assert f'<a href="/releases/{release_id}/">release:{release_id}</a>' in page
