"""A release's conclusion runs on the control-plane worker, not in the result upload.

Real processes: a live API server, a private Redis broker, the control plane's own Celery
worker (`control_plane`) and two vLLM-shaped endpoints. The test plays the GPU worker:
it claims the run, runs the real harness against the endpoints, then makes the candidate
endpoint stall (every info path trickles) and uploads the result over HTTP. The upload
answers at once; the drift re-probe of the stalled endpoint (up to
ENDPOINT_PROBE_TIMEOUT_S) happens afterwards in the task, which then gives the verdict."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

import pytest

from audit_app.models import AuditEvent
from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_start
from live_app.services import endpoint_create
from releases_app.models import Release
from releases_app.services.endpoints import endpoint_register
from tests.live.conftest import vllm_claim
from tests.support.actors import as_caller
from tests.support.benchmarked import execute_in_thread
from tests.support.factories import make_version, variant
from tests.support.launcher import wait_for
from tests.support.processes import ControlPlaneWorker
from tests.support.workers import register

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

DEV = {"VLLM_SERVER_DEV_MODE": "1"}
SMALL = {"extraction": {"dataset": "builtin:extraction", "concurrency": [1, 2], "requests_per_level": 4,
                        "max_tokens": 12}}  # fmt: skip


# The worker's log lines for the task (its start-up banner names it too).
TASK_RECEIVED = re.compile(rb"Task releases_app\.conclude_release\[[^\]]+\] received")
TASK_DONE = re.compile(rb"conclude_release\[[^\]]+\] succeeded in [^:]+: 'release \d+: gate ")


def _upload(url: str, run: Run, token: str, payload: dict[str, Any]) -> tuple[int, float]:
    """PUT the result as the worker does; (status, seconds until the answer)."""
    request = urllib.request.Request(
        f"{url}/api/v1/runs/{run.pk}/result",
        data=json.dumps(payload).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Token {token}",
            "X-Request-ID": f"result-upload-{run.pk}",
        },
        method="PUT",
    )
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, time.monotonic() - started


def _benchmarked_with_a_stalling_canary(route_v1: Any, proposer: Any, operator: Any, emulator: Any) -> Any:
    """A release on prod-eu and canary whose one run the test benchmarked as its worker;
    the canary stalls from then on. (release, run, the worker's token, the result.)"""
    v2 = make_version(
        route_v1,
        variant(
            route_v1.active_version.document,
            **{"speculation.num_speculative_tokens": 3, "measurement.workloads": SMALL},
        ),
    )
    prod = emulator(*vllm_claim(), "--pattern", "1", "--step-ms", "20", env=DEV)
    canary = emulator(*vllm_claim(num_speculative_tokens=3), "--pattern", "3", "--step-ms", "20", env=DEV)
    endpoint_create(route=route_v1, name="prod-eu", base_url=prod.base_url, engine="vllm", actor=operator)
    caller = as_caller("operator", proposer).client()
    body = {"route": route_v1.slug, "candidate_version": v2.number,
            "endpoints": {"baseline": "prod-eu", "candidate": "canary"}}  # fmt: skip
    response = caller.post("/api/v1/releases/", body, format="json")
    assert response.status_code == 201, response.content
    release = Release.objects.get(pk=response.json()["id"])
    endpoint_register(route=route_v1, name="canary", base_url=canary.base_url, engine="vllm",
                      expects=f"release:{release.pk}", actor=operator)  # fmt: skip
    response = as_caller("operator", operator).client().post(f"/api/v1/releases/{release.pk}/benchmark")
    assert response.status_code == 200, response.content

    (run,) = Run.objects.filter(release=release)
    registration = register("gpu-1")
    run_start(run_id=run.pk, worker=registration.worker, attempt=run.attempt)
    outcome = execute_in_thread(run.spec)
    # The candidate endpoint stalls from now on: the drift re-probe waits out its deadline.
    assert canary.post_json("/admin/hostile", {"mode": "trickle"})[0] == 200
    return release, run, registration.token, {**outcome, "run_id": run.pk, "attempt": run.attempt}


def _concluded(release: Release, within_s: float, log: Any) -> Release:
    def done() -> Release | None:
        fresh = Release.objects.get(pk=release.pk)
        return fresh if fresh.state != "benchmarking" else None

    try:
        return wait_for(done, within_s, f"release {release.pk} to conclude")  # type: ignore[no-any-return]
    except AssertionError:
        raise AssertionError(log.read_text()[-4000:]) from None


def _verdicts(release: Release) -> int:
    events = AuditEvent.objects.for_object("release", release.pk)
    return events.filter(action="release.gate_completed").count()


def test_the_upload_answers_at_once_and_the_task_concludes_after_the_stalled_reprobe(
    live_server: Any,
    control_plane: ControlPlaneWorker,
    route_v1: Any,
    proposer: Any,
    operator: Any,
    emulator: Any,
    settings: Any,
) -> None:
    release, run, token, payload = _benchmarked_with_a_stalling_canary(route_v1, proposer, operator, emulator)
    status, seconds = _upload(live_server.url, run, token, payload)
    answered = time.monotonic()
    assert status == 201
    assert seconds < 1.0, f"the upload took {seconds:.2f} s"
    # The re-probe takes up to ENDPOINT_PROBE_TIMEOUT_S (3 s here): not concluded yet.
    assert Release.objects.get(pk=release.pk).state == "benchmarking"

    done = _concluded(release, 60, control_plane.log)
    later = time.monotonic() - answered
    # The task waited out the stalled re-probe (an endpoint that doesn't answer is not
    # drift: the verdict stands), after the upload had answered.
    assert later >= settings.ENDPOINT_PROBE_TIMEOUT_S - 0.5, f"concluded {later:.2f} s after the upload"
    assert done.state == "awaiting_review", done.failure_reason
    assert done.gate_verdict in {"pass", "marginal", "fail"} and done.gate_result
    assert _verdicts(release) == 1
    assert TASK_DONE.search(control_plane.log.read_bytes())
    # The task ran in the upload's request context (its id rode in the message's headers).
    verdict = AuditEvent.objects.for_object("release", release.pk).get(action="release.gate_completed")
    assert verdict.request_id == f"result-upload-{run.pk}"


def test_a_worker_killed_mid_conclusion_gets_it_redelivered_and_concludes_once(
    live_server: Any,
    control_plane: ControlPlaneWorker,
    protocol: Any,
    route_v1: Any,
    proposer: Any,
    operator: Any,
    emulator: Any,
    settings: Any,
    tmp_path: Any,
) -> None:
    release, run, token, payload = _benchmarked_with_a_stalling_canary(route_v1, proposer, operator, emulator)
    assert _upload(live_server.url, run, token, payload)[0] == 201
    # kill -9 while the task waits on the stalled re-probe: acknowledged late, the message
    # stays unacknowledged in the broker.
    wait_for(lambda: TASK_RECEIVED.search(control_plane.log.read_bytes()), 30, "the task to start")
    control_plane.kill_all()
    time.sleep(settings.ENDPOINT_PROBE_TIMEOUT_S + 1)
    assert Release.objects.get(pk=release.pk).state == "benchmarking" and _verdicts(release) == 0

    # A second worker; the broker redelivers what was unacknowledged after the visibility
    # timeout (short here), and no beat runs the periodic pass: only the redelivery concludes it.
    second = ControlPlaneWorker(
        tmp_path / "second",
        protocol.url,
        env={
            "ENDPOINT_ALLOWED_NETWORKS": str(settings.ENDPOINT_ALLOWED_NETWORKS),
            "ENDPOINT_PROBE_TIMEOUT_S": str(settings.ENDPOINT_PROBE_TIMEOUT_S),
            "CELERY_VISIBILITY_TIMEOUT_S": "5",
        },
    )
    try:
        second.wait_ready()
        done = _concluded(release, 90, second.log)
        assert done.state == "awaiting_review", done.failure_reason
        assert _verdicts(release) == 1
        assert TASK_DONE.search(second.log.read_bytes())
    finally:
        second.stop()
