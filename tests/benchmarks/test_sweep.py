"""The lost-run sweep: nothing stays `running` for a worker that is gone."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from benchmarks_app.choices import RunState
from benchmarks_app.models import OutboxMessage, Run, Worker
from benchmarks_app.services.lifecycle import run_start
from benchmarks_app.services.sweep import runs_sweep
from benchmarks_app.services.workers import worker_heartbeat, worker_revoke
from kernel.errors import DomainError
from tests.support.workers import SMALL_LOAD, openai_run, register

pytestmark = pytest.mark.django_db


def _running(versions: Any, worker: Worker, **overrides: Any) -> Run:
    run = openai_run(versions, worker=worker, overrides={**SMALL_LOAD, **overrides})
    return run_start(run_id=run.pk, worker=worker, attempt=1)


def _silence(worker: Worker, seconds: int = 600) -> None:
    Worker.objects.filter(pk=worker.pk).update(last_heartbeat_at=timezone.now() - timedelta(seconds=seconds))


def test_a_run_whose_worker_went_silent_fails_with_the_reason_when_no_other_worker_fits(
    versions: Any,
) -> None:
    w1 = register("w1").worker
    run = _running(versions, w1)
    assert runs_sweep().failed == []  # alive: nothing to do
    _silence(w1)
    report = runs_sweep()
    run.refresh_from_db()
    assert report.failed == [run.pk]
    assert run.state == RunState.FAILED and run.finished_at is not None
    assert "worker w1" in run.last_error and "stopped heartbeating" in run.last_error
    assert "no other fitting worker is online" in run.last_error


def test_a_lost_run_is_requeued_once_on_another_fitting_worker(versions: Any) -> None:
    w1, w2 = register("w1").worker, register("w2").worker
    register("cpu-only-openai-less", caps=["transformers"])  # does not fit an openai run
    run = _running(versions, w1)
    _silence(w1)
    assert runs_sweep().requeued == [run.pk]
    run.refresh_from_db()
    assert (run.state, run.attempt, run.worker_id, run.queue) == (RunState.QUEUED, 2, None, f"worker.{w2.pk}")
    assert run.spec["attempt"] == 2
    message = OutboxMessage.objects.get(run=run, attempt=2)
    assert message.queue == f"worker.{w2.pk}" and message.task_id == f"run-{run.pk}-attempt-2"

    # The second attempt is lost as well: that was the last allowed.
    run_start(run_id=run.pk, worker=w2, attempt=2)
    _silence(w2)
    assert runs_sweep().failed == [run.pk]
    run.refresh_from_db()
    assert run.state == RunState.FAILED and "attempt 2 was the last allowed" in run.last_error
    assert [h["event"] for h in run.history] == ["queued", "started", "requeued", "started", "failed"]


def test_a_stale_attempt_is_told_to_drop_quietly(versions: Any) -> None:
    reg1 = register("w1")
    register("w2")
    run = _running(versions, reg1.worker)
    _silence(reg1.worker)
    runs_sweep()
    client = APIClient(HTTP_AUTHORIZATION=f"Token {reg1.token}")
    response = client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "stale_attempt"


def test_a_revoked_workers_run_is_lost(versions: Any, admin: Any) -> None:
    w1 = register("w1").worker
    run = _running(versions, w1)
    worker_revoke(worker=w1, actor=admin, reason="stolen laptop")
    runs_sweep()
    run.refresh_from_db()
    assert run.state == RunState.FAILED and "was revoked" in run.last_error


def test_a_worker_that_restarted_without_its_run_loses_it(versions: Any) -> None:
    w1 = register("w1").worker
    run = _running(versions, w1)
    with override_settings(WORKER_OFFLINE_AFTER_S=30):
        Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(seconds=60))
        worker_heartbeat(worker=w1, current_run={"id": run.pk, "attempt": 1})
        assert runs_sweep().failed == []
        worker_heartbeat(worker=w1, current_run=None)
        assert runs_sweep().failed == [run.pk]
    run.refresh_from_db()
    assert "no longer running attempt 1" in run.last_error


def test_a_run_past_its_hard_time_limit_is_timed_out(versions: Any) -> None:
    w1 = register("w1").worker
    run = _running(versions, w1, time_limit_s=120)
    worker_heartbeat(worker=w1, current_run={"id": run.pk, "attempt": 1})
    Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(seconds=120 + 121))
    assert runs_sweep().timed_out == [run.pk]
    run.refresh_from_db()
    assert run.state == RunState.TIMED_OUT and "hard time limit of 120 s" in run.last_error


def test_a_time_limit_beyond_the_visibility_timeout_is_refused(versions: Any) -> None:
    with (
        override_settings(CELERY_BROKER_TRANSPORT_OPTIONS={"visibility_timeout": 3600}),
        pytest.raises(DomainError, match="visibility timeout"),
    ):
        openai_run(versions, overrides={"time_limit_s": 7200})


def test_a_run_queued_for_a_revoked_worker_goes_to_another(versions: Any, admin: Any) -> None:
    w1, w2 = register("w1").worker, register("w2").worker
    run = openai_run(versions, worker=w1, overrides={"requests_per_level": 2})
    worker_revoke(worker=w1, actor=admin, reason="retired")
    assert runs_sweep().requeued == [run.pk]
    run.refresh_from_db()
    assert (run.state, run.attempt, run.queue) == (RunState.QUEUED, 2, f"worker.{w2.pk}")
    assert "was revoked before it started" in run.last_error
