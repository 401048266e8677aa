"""The release's conclusion as a task (`releases_app.tasks.release_conclude_task`): sent
after the last run's commit, idempotent, retried on transient errors, quiet when there is
nothing left to conclude."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from django.test import TestCase

from audit_app.models import AuditEvent
from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_result_submit, run_start
from kernel.task_retry import TRANSIENT_ERRORS
from live_app.tasks import probe_request_task
from releases_app import tasks
from releases_app.models import Release
from releases_app.services import gate_verdict
from tests.support.benchmarked import (
    NO_BROKER,
    active_route,
    harness_outcome,
    propose_candidate,
    register_worker,
)

pytestmark = pytest.mark.django_db


def _ended_unconcluded(proposer: Any, approver: Any) -> Release:
    """A release benchmarking whose runs have all succeeded; its conclusion not run yet (the
    uploads' on-commit callbacks never run inside the test's transaction)."""
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    worker = register_worker()
    for run in Run.objects.filter(release=release).order_by("id"):
        run_start(run_id=run.pk, worker=worker, attempt=run.attempt)
        run_result_submit(run_id=run.pk, worker=worker, attempt=run.attempt, payload=harness_outcome(run))
    release.refresh_from_db()
    assert release.state == "benchmarking"
    return release


def _verdicts(release: Release) -> int:
    return (
        AuditEvent.objects.for_object("release", release.pk).filter(action="release.gate_completed").count()
    )


def test_a_run_that_dies_before_its_commit_and_runs_again_gives_one_verdict(
    proposer: Any, approver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = _ended_unconcluded(proposer, approver)
    real, calls = gate_verdict.release_gate_complete, []

    def dies_before_commit(**kwargs: Any) -> Release:
        done = real(**kwargs)  # the gate computed and the transition written, not committed
        calls.append(done.state)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return done

    monkeypatch.setattr(gate_verdict, "release_gate_complete", dies_before_commit)
    result = tasks.release_conclude_task.apply(args=[release.pk])
    assert calls == ["awaiting_review", "awaiting_review"]  # rolled back once, retried once
    assert result.successful() and "gate" in result.result
    release.refresh_from_db()
    assert release.state == "awaiting_review" and release.gate_verdict in {"pass", "marginal", "fail"}
    assert _verdicts(release) == 1

    again = tasks.release_conclude_task.apply(args=[release.pk])  # a redelivery after the verdict
    assert "nothing to do" in again.result
    assert len(calls) == 2 and _verdicts(release) == 1
    assert Release.objects.get(pk=release.pk).state == "awaiting_review"


def test_a_gone_release_is_nothing_to_do() -> None:
    result = tasks.release_conclude_task.apply(args=[987654])
    assert result.successful() and "gone or no longer benchmarking" in result.result


@pytest.mark.parametrize("task", [tasks.release_conclude_task, probe_request_task], ids=["conclude", "probe"])
def test_only_transient_errors_are_retried_with_backoff_and_jitter(task: Any) -> None:
    assert set(task.autoretry_for) == {*TRANSIENT_ERRORS} and task.retry_jitter and task.retry_backoff
    assert task.acks_late and task.reject_on_worker_lost and not isinstance(ValueError(), task.autoretry_for)


def test_the_upload_sends_the_conclusion_after_its_commit(
    proposer: Any, approver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    sent: list[int] = []
    monkeypatch.setattr(tasks, "release_conclude_enqueue", lambda *, release_id: sent.append(release_id))
    worker = register_worker()
    runs = list(Run.objects.filter(release=release).order_by("id"))
    for run in runs:
        run_start(run_id=run.pk, worker=worker, attempt=run.attempt)
        with TestCase.captureOnCommitCallbacks(execute=True):
            run_result_submit(run_id=run.pk, worker=worker, attempt=run.attempt, payload=harness_outcome(run))
            assert sent.count(release.pk) == runs.index(run)  # nothing sent before the commit
    assert sent == [release.pk] * len(runs)  # each run's end; the task sees whether all ended
    assert Release.objects.get(pk=release.pk).state == "benchmarking"  # the task concludes, not the upload


def test_a_broker_that_is_down_never_fails_the_upload(
    settings: Any, caplog: pytest.LogCaptureFixture, sends_through_the_broker: None
) -> None:
    settings.CELERY_BROKER_URL = NO_BROKER
    tasks.release_conclude_enqueue(release_id=1)
    assert "the periodic pass concludes it" in caplog.text
