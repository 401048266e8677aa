"""A worker's identity owns its queues: the control plane assigns them at registration,
no worker can ask for another's `worker.N`, and a run pinned to a worker is refused (403,
nothing changed) to every other worker whatever queue its message came through."""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from benchmarks_app.choices import RunState
from benchmarks_app.models import Run, RunResult, Worker
from benchmarks_app.services.workers import bootstrap_token_create
from tests.support.workers import GPU_HARDWARE, HARDWARE, openai_run

NO_BROKER = "redis://127.0.0.1:9/0"
# The load `outcome_template` was measured with, so its result fits the run.
TEMPLATE_LOAD = {"concurrency": [1, 2], "requests_per_level": 3, "max_tokens": 8, "warmup_requests": 0}


def _register(token: str, name: str, *, hardware: dict[str, Any] = HARDWARE, **extra: Any) -> Any:
    body = {
        "name": name,
        "host": f"{name}.lan",
        "agent_version": "0.1.0",
        "spec_versions": [1],
        "hardware": hardware,
        "engines": {"vllm": "0.11.0"},
        "capabilities": ["openai", "managed"],
        **extra,
    }
    return APIClient().post(
        "/api/v1/workers/register", body, format="json", HTTP_AUTHORIZATION=f"Token {token}"
    )


def _as(token: str) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Token {token}")


def _snapshot(run: Run) -> tuple[Any, ...]:
    run.refresh_from_db()
    return (run.state, run.worker_id, run.attempt, run.progress_done, run.started_at, len(run.history))


@pytest.fixture
def bootstrap(db: None) -> str:
    return bootstrap_token_create(note="queue identity")[1]


@pytest.mark.django_db
def test_a_second_worker_cannot_take_over_the_first_ones_pinned_run(
    bootstrap: str, versions: Any, outcome_template: dict[str, Any]
) -> None:
    """The attack from issue 12, end to end over the API."""
    first = _register(bootstrap, "honest").json()
    first_id = first["worker"]["id"]
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = openai_run(versions, worker=Worker.objects.get(pk=first_id), overrides=TEMPLATE_LOAD)
    assert run.queue == f"worker.{first_id}" and run.target_worker_id == first_id

    # 1. Asking for the first worker's queue at registration is refused, naming the entry.
    events = AuditEvent.objects.count()
    refused = _register(bootstrap, "intruder", queues=["team-a", f"worker.{first_id}"])
    assert refused.status_code == 400
    assert refused["Content-Type"].startswith("application/problem+json")
    assert [e["path"] for e in refused.json()["errors"]] == ["queues[1]"]
    assert "another's" in refused.json()["errors"][0]["message"]
    assert not Worker.objects.filter(name="intruder").exists()
    assert AuditEvent.objects.count() == events

    # 2. Registered without it, the intruder is not given that queue ...
    intruder = _register(bootstrap, "intruder", queues=["team-a"]).json()
    assert f"worker.{first_id}" not in intruder["queues"]
    # ... and even a row that holds it (written before registration refused such names)
    # gets no say over the pinned run: the run's target decides, not the queue.
    Worker.objects.filter(pk=intruder["worker"]["id"]).update(extra_queues=[f"worker.{first_id}"])
    assert f"worker.{first_id}" not in Worker.objects.get(pk=intruder["worker"]["id"]).queues

    before = _snapshot(run)
    bad = _as(intruder["token"])
    payload = {**copy.deepcopy(outcome_template), "run_id": run.pk, "attempt": 1}
    answers = [
        bad.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json"),
        bad.post(f"/api/v1/runs/{run.pk}/progress", {"attempt": 1, "done": 1, "total": 12}, format="json"),
        bad.post(f"/api/v1/runs/{run.pk}/fail", {"attempt": 1, "kind": "error", "reason": "x"}, "json"),
        bad.put(f"/api/v1/runs/{run.pk}/result", payload, format="json"),
    ]
    assert [a.status_code for a in answers] == [403, 403, 403, 403]
    assert all("pinned to worker" in a.json()["detail"] for a in answers)
    assert _snapshot(run) == before and not RunResult.objects.filter(run=run).exists()

    # 3. The real worker still claims and finishes its run.
    good = _as(first["token"])
    assert good.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json").status_code == 200
    # Started, the run is still not the intruder's to report on or upload.
    assert bad.put(f"/api/v1/runs/{run.pk}/result", payload, format="json").status_code == 403
    assert good.put(f"/api/v1/runs/{run.pk}/result", payload, format="json").status_code == 201
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED and run.worker_id == first_id
    assert RunResult.objects.get(run=run).worker_id == first_id


@pytest.mark.django_db
def test_the_target_decides_even_when_the_message_came_through_a_shared_pool(
    bootstrap: str, versions: Any
) -> None:
    first = _register(bootstrap, "honest").json()
    other = _register(bootstrap, "other").json()
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = openai_run(versions, worker=Worker.objects.get(pk=first["worker"]["id"]))
    Run.objects.filter(pk=run.pk).update(queue="pool.any")  # a pool both workers serve
    before = _snapshot(run)
    response = _as(other["token"]).post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    assert response.status_code == 403 and _snapshot(run) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("hardware", "caps", "asked", "why"),
    [
        (HARDWARE, ["openai"], "pool.gpu", "assigned by the control plane"),
        (HARDWARE, ["openai"], "pool.gpu-h200", "assigned by the control plane"),
        (GPU_HARDWARE, ["openai"], "pool.cpu", "assigned by the control plane"),
        (HARDWARE, ["openai"], "engine.transformers", "assigned by the control plane"),
        (HARDWARE, ["openai"], "worker.999", "own queue"),
    ],
)
def test_pools_a_worker_does_not_qualify_for_are_refused_at_registration(
    bootstrap: str, hardware: dict[str, Any], caps: list[str], asked: str, why: str
) -> None:
    response = _register(bootstrap, "w", hardware=hardware, capabilities=caps, queues=[asked])
    assert response.status_code == 400, response.content
    error = response.json()["errors"][0]
    assert error["path"] == "queues[0]" and why in error["message"]
    assert Worker.objects.count() == 0


@pytest.mark.django_db
def test_operator_pools_are_kept_and_pools_it_qualifies_for_are_not_repeated(bootstrap: str) -> None:
    body = _register(
        bootstrap,
        "gpu-1",
        hardware=GPU_HARDWARE,
        capabilities=["openai", "transformers", "cuda"],
        queues=["team-a", "pool.canary", "pool.gpu", "engine.transformers", "team-a"],
    ).json()
    worker_id = body["worker"]["id"]
    assert body["queues"] == [
        f"worker.{worker_id}",
        "pool.gpu-h200",
        "pool.gpu",
        "engine.transformers",
        "pool.any",
        "team-a",
        "pool.canary",
    ]
    assert Worker.objects.get(pk=worker_id).extra_queues == ["team-a", "pool.canary"]


@pytest.mark.django_db
def test_a_run_in_a_shared_pool_is_still_claimed_by_any_worker_that_serves_it(
    bootstrap: str, versions: Any
) -> None:
    """Pinning is what refuses: an unpinned run in `pool.any` goes to whoever claims it."""
    a = _register(bootstrap, "a").json()
    b = _register(bootstrap, "b").json()
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = openai_run(versions)
    assert run.queue == "pool.any" and run.target_worker_id is None
    started = _as(b["token"]).post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    assert started.status_code == 200
    # Claimed by b, it is b's: a is refused.
    response = _as(a["token"]).post(
        f"/api/v1/runs/{run.pk}/progress", {"attempt": 1, "done": 1, "total": 12}, format="json"
    )
    assert response.status_code == 403


@pytest.mark.django_db(transaction=True)
def test_the_agent_consumes_what_the_control_plane_assigned(
    live_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The real `specpact-worker run` registration against a live server: it asks for
    pools, learns its queues from the answer, and consumes those alone."""
    from worker.run_cli import _register as agent_register
    from worker.run_cli import queues_to_consume

    _, token = bootstrap_token_create(note="agent")
    with pytest.raises(SystemExit, match=r"queues\[1\]"):
        agent_register(live_server.url, token, "agent-1", ["team-a", "worker.1"])
    credentials = agent_register(live_server.url, token, "agent-1", ["team-a"])
    worker = Worker.objects.get(pk=credentials.worker_id)
    assert credentials.queues == worker.queues
    assert credentials.queues[0] == f"worker.{worker.pk}" and "team-a" in credentials.queues
    with caplog.at_level(logging.WARNING, logger="specpact.worker"):
        consumed = queues_to_consume(credentials, ["team-a", "worker.1"])
    assert consumed == credentials.queues and "worker.1" not in consumed
    assert "not consuming worker.1" in caplog.text
