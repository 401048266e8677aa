"""End to end, with real processes: the API served by a live HTTP server, a private
redis-server, `specpact-worker run` agents (real Celery workers, prefork pool), and
OpenAI-compatible test servers that the harness's `openai` engine benchmarks.

Faults: kill -9 of an agent mid-run, kill -9 of the task's pool process, Redis stopped
while runs are dispatched, a spec of another version."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from io import StringIO
from typing import Any

import httpx
import pytest
from django.core.management import call_command
from django.db import transaction

from benchmarks_app.choices import FINISHED_STATES, RunState
from benchmarks_app.models import OutboxMessage, Run, RunResult, Worker
from benchmarks_app.services.runs import run_cancel, run_create
from benchmarks_app.services.sweep import runs_sweep
from benchmarks_app.services.workers import bootstrap_token_create, worker_register, worker_revoke
from tests.support.launcher import wait_for
from tests.support.processes import Agent, RedisServer
from tests.support.workers import openai_run

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

OFFLINE_AFTER_S = 4


@pytest.fixture
def protocol(protocol: RedisServer, settings: Any) -> RedisServer:
    """The shared broker set-up (tests/conftest.py), with workers offline sooner."""
    settings.WORKER_OFFLINE_AFTER_S = OFFLINE_AFTER_S
    return protocol


def _run(
    versions: Any, endpoints: dict[str, Any], *, worker: Worker | None = None, max_tokens: int = 24
) -> Run:
    overrides = {
        "concurrency": [1, 2],
        "requests_per_level": 4,
        "max_tokens": max_tokens,
        "warmup_requests": 0,
        "time_limit_s": 300,
    }
    return openai_run(versions, endpoints=endpoints, worker=worker, overrides=overrides)


def _finished(run_id: int, timeout_s: float, agents: list[Agent]) -> Run:
    def done() -> Run | None:
        run = Run.objects.get(pk=run_id)
        return run if run.state in FINISHED_STATES else None

    try:
        return wait_for(done, timeout_s, f"run {run_id} to finish")
    except AssertionError:
        logs = "\n".join(a.log.read_text()[-4000:] for a in agents)
        raise AssertionError(
            f"run {run_id} is {Run.objects.get(pk=run_id).state}; agent logs:\n{logs}"
        ) from None


def _start(agents: Callable[..., Agent], url: str, name: str) -> tuple[Agent, Worker]:
    agent = agents(url, name)
    worker = Worker.objects.get(pk=agent.worker_id())
    agent.wait_ready()
    return agent, worker


def _under_way(run: Run, what: str) -> None:
    """Wait until the worker has claimed `run` and reported progress on it."""
    wait_for(
        lambda: Run.objects.filter(pk=run.pk, state=RunState.RUNNING, progress_done__gt=0).exists(),
        60,
        what,
    )


def test_a_dispatched_run_reaches_the_worker_and_its_result_lands(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    agent, worker = _start(agents, live_server.url, "w1")
    assert worker.queues[0] == f"worker.{worker.pk}" and worker.status == "online"
    run = _run(versions, endpoints, worker=worker)
    assert run.queue == f"worker.{worker.pk}"
    run = _finished(run.pk, 90, [agent])
    assert run.state == RunState.SUCCEEDED, run.last_error
    result = RunResult.objects.get(run=run)
    assert (result.worker_id, result.attempt) == (worker.pk, 1)
    payload = result.payload
    assert [lv["concurrency"] for lv in payload["candidate"]["levels"]] == [1, 2]
    assert all(lv["completed"] == 4 for arm in ("baseline", "candidate") for lv in payload[arm]["levels"])
    # The candidate's server streams three tokens per chunk, the baseline's one.
    assert payload["candidate"]["levels"][0]["tokens_per_chunk"]["max"] == 3
    assert payload["baseline"]["levels"][0]["tokens_per_chunk"]["max"] == 1
    assert [(s["level_index"], s["arm"]) for s in payload["order"]] == [
        (0, "baseline"),
        (0, "candidate"),
        (1, "candidate"),
        (1, "baseline"),
    ]
    assert run.progress_done == run.progress_total == 16

    # A second worker's token cannot post the first one's results, over real HTTP.
    bootstrap, _ = bootstrap_token_create()
    second = worker_register(
        bootstrap=bootstrap,
        name="w2",
        host="h",
        hardware=worker.hardware,
        engines={},
        capabilities=["openai"],
        agent_version="0.1.0",
        spec_versions=[1],
        extra_queues=[],
    )
    response = httpx.put(
        f"{live_server.url}/api/v1/runs/{run.pk}/result",
        json=payload,
        headers={"Authorization": f"Token {second.token}"},
    )
    assert response.status_code == 403
    assert RunResult.objects.filter(run=run).count() == 1


def test_kill_9_of_the_worker_mid_run_requeues_it_on_another_worker_counted_once(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    first, w1 = _start(agents, live_server.url, "w1")
    second, w2 = _start(agents, live_server.url, "w2")
    run = _run(versions, endpoints, worker=w1, max_tokens=48)
    _under_way(run, "the run to be under way on w1")
    first.kill_all()  # the agent and its pool process: the machine is gone

    wait_for(
        lambda: Worker.objects.get(pk=w1.pk).status == "offline", OFFLINE_AFTER_S + 10, "w1 to go offline"
    )
    assert Run.objects.get(pk=run.pk).state == RunState.RUNNING  # until the sweep looks
    report = runs_sweep()
    assert report.requeued == [run.pk]
    requeued = Run.objects.get(pk=run.pk)
    assert (requeued.state, requeued.attempt, requeued.queue) == (RunState.QUEUED, 2, f"worker.{w2.pk}")
    assert "stopped heartbeating" in requeued.last_error

    run = _finished(run.pk, 120, [second])
    assert run.state == RunState.SUCCEEDED, run.last_error
    [result] = RunResult.objects.filter(run=run)
    assert (result.worker_id, result.attempt) == (w2.pk, 2)
    assert [h["event"] for h in run.history] == ["queued", "started", "requeued", "started", "succeeded"]
    assert runs_sweep().requeued == []


def test_kill_9_of_the_task_process_redelivers_the_run_to_the_same_worker_counted_once(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    agent, worker = _start(agents, live_server.url, "w1")
    run = _run(versions, endpoints, worker=worker, max_tokens=48)
    _under_way(run, "the run to be under way")
    [child] = agent.children()
    os.kill(child, signal.SIGKILL)  # late ack + reject_on_worker_lost: the message goes back

    run = _finished(run.pk, 120, [agent])
    assert run.state == RunState.SUCCEEDED, run.last_error
    [result] = RunResult.objects.filter(run=run)
    assert (result.worker_id, result.attempt) == (worker.pk, 1)
    events = [h["event"] for h in run.history]
    assert events == ["queued", "started", "restarted", "succeeded"], events


def test_runs_dispatched_while_redis_is_down_are_delivered_once_after_restart(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    agent, _ = _start(agents, live_server.url, "w1")
    protocol.stop()
    runs = [_run(versions, endpoints, max_tokens=8) for _ in range(3)]  # to pool.any
    assert OutboxMessage.objects.filter(published_at__isnull=True).count() == 3
    assert all(r.state == RunState.QUEUED for r in Run.objects.all())

    protocol.start()
    out = StringIO()
    call_command("relay_outbox", "--now", stdout=out)
    assert "published 3" in out.getvalue(), out.getvalue()
    for run in runs:
        finished = _finished(run.pk, 120, [agent])
        assert finished.state == RunState.SUCCEEDED, finished.last_error
        assert [h["event"] for h in finished.history] == ["queued", "started", "succeeded"]
    assert RunResult.objects.count() == 3
    assert set(RunResult.objects.values_list("attempt", flat=True)) == {1}
    assert set(OutboxMessage.objects.values_list("publish_count", flat=True)) == {1}


def test_a_spec_of_another_version_is_refused_and_the_reason_lands_on_the_run(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    agent, worker = _start(agents, live_server.url, "w1")
    with transaction.atomic():  # as a control plane of a newer version would send it
        run = _run(versions, endpoints, worker=worker)
        message = OutboxMessage.objects.get(run=run)
        message.payload = {**message.payload, "spec_version": 99, "new_field": {"x": 1}}
        message.save()
    run = _finished(run.pk, 60, [agent])
    assert run.state == RunState.FAILED
    assert "run specification version 1" in run.last_error and "version 99" in run.last_error
    assert not RunResult.objects.exists()


def test_the_embedded_filesystem_broker_delivers_runs_too(
    live_server: Any,
    settings: Any,
    tmp_path: Any,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    """The demo's setup: no Redis, kombu's filesystem transport under one folder, whose
    options the worker receives at registration."""
    broker = tmp_path / "broker"
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.WORKER_BROKER_URL = None
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(broker / "out"),
        "data_folder_out": str(broker / "out"),
        "processed_folder": str(broker / "processed"),
        "control_folder": str(broker / "control"),
        "store_processed": False,
    }
    settings.WORKER_HEARTBEAT_S = 1
    agent, worker = _start(agents, live_server.url, "fs-1")
    run = _run(versions, endpoints, worker=worker, max_tokens=8)
    run = _finished(run.pk, 90, [agent])
    assert run.state == RunState.SUCCEEDED, run.last_error
    assert RunResult.objects.filter(run=run).count() == 1


def test_cancelling_a_running_run_stops_the_worker_and_no_result_is_taken(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    agent, worker = _start(agents, live_server.url, "w1")
    run = _run(versions, endpoints, worker=worker, max_tokens=48)
    _under_way(run, "the run to be under way")
    run_cancel(run=Run.objects.get(pk=run.pk), actor=None, reason="wrong candidate")
    wait_for(lambda: b"'outcome': 'cancelled'" in agent.log.read_bytes(), 60, "the worker to stop the run")
    run = Run.objects.get(pk=run.pk)
    assert run.state == RunState.CANCELLED and "wrong candidate" in run.last_error
    assert not RunResult.objects.filter(run=run).exists()
    # The worker is free again: the next run lands.
    after = _finished(_run(versions, endpoints, worker=worker, max_tokens=8).pk, 90, [agent])
    assert after.state == RunState.SUCCEEDED, after.last_error


def test_the_specs_soft_time_limit_ends_the_run_timed_out(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
) -> None:
    agent, worker = _start(agents, live_server.url, "w1")
    baseline, candidate = versions
    run = run_create(
        route=baseline.route, baseline=baseline, candidate=candidate, lane="extraction", actor=None,
        engine_kind="openai", endpoints=endpoints, worker=worker,
        overrides={"concurrency": [1, 2], "requests_per_level": 8, "max_tokens": 48, "time_limit_s": 35},
    )  # fmt: skip
    assert run.spec["limits"] == {"soft_time_limit_s": 5, "time_limit_s": 35, "request_timeout_s": 600.0}
    run = _finished(run.pk, 90, [agent])
    assert run.state == RunState.TIMED_OUT, (run.state, run.last_error)
    assert run.last_error == "the run exceeded its time limit of 5 s"
    assert not RunResult.objects.filter(run=run).exists()


def test_a_revoked_worker_stops_consuming_and_loses_no_message(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    versions: Any,
    endpoints: dict[str, Any],
    admin: Any,
) -> None:
    first, w1 = _start(agents, live_server.url, "w1")
    second, w2 = _start(agents, live_server.url, "w2")
    worker_revoke(worker=w1, actor=admin, reason="decommissioned")
    # Sent at once to the pool both serve: w1 may still take one before it notices.
    runs = [_run(versions, endpoints, max_tokens=8) for _ in range(3)]
    first.proc.wait(30)  # the agent shut itself down
    assert b"stopping the agent" in first.log.read_bytes()
    for run in runs:
        done = _finished(run.pk, 120, [second])
        assert done.state == RunState.SUCCEEDED and done.worker_id == w2.pk, done.last_error
    # Restarted with its saved credentials, it refuses to enrol itself again.
    again = Agent(first.home, live_server.url, "", "w1")
    assert again.proc.wait(30) != 0
    assert b"probably revoked" in again.log.read_bytes()
