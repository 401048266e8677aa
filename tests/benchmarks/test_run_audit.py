"""A run's life as its worker reports it is in the audit trail, by the worker's actor:
claimed, each (level, arm) piece done (not every progress report), failed, its result
accepted with the result's digest (issue 21, point 10). Through the worker protocol's API."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from audit_app.chain import verify_chain
from audit_app.models import AuditEvent
from benchmarks_app.models import Run, RunResult
from tests.support.workers import register

pytestmark = pytest.mark.django_db


def _client(token: str) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Token {token}")


def _trail(run: Run) -> list[AuditEvent]:
    return list(AuditEvent.objects.for_object("run", run.pk).exclude(action="run.create").order_by("id"))


def test_a_runs_claim_pieces_and_accepted_result_are_audited_by_its_worker(
    run: Run, outcome_template: dict[str, Any]
) -> None:
    reg = register("w1")
    client = _client(reg.token)
    assert client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json").status_code == 200
    # 2 levels x 2 arms x 3 requests: pieces end at 3, 6, 9, 12. Reports at 1, 2 (within the
    # first piece), 3 (its end), 4, 7 (past the second's end) and 12 (the last two at once).
    for done in (1, 2, 3, 4, 7, 12):
        response = client.post(
            f"/api/v1/runs/{run.pk}/progress",
            {"attempt": 1, "done": done, "total": 12, "phase": "benchmarking"},
            format="json",
        )
        assert response.status_code == 200, response.content
    payload = {**copy.deepcopy(outcome_template), "run_id": run.pk, "attempt": 1}
    assert client.put(f"/api/v1/runs/{run.pk}/result", payload, format="json").status_code == 201
    assert (
        client.put(f"/api/v1/runs/{run.pk}/result", payload, format="json").status_code == 200
    )  # again: once

    trail = _trail(run)
    assert [e.action for e in trail] == [
        "run.started",
        "run.progress",
        "run.progress",
        "run.progress",
        "run.result_accepted",
    ]
    assert {e.actor_label for e in trail} == {"worker:w1"} and {e.route for e in trail} == {
        "contract-summaries"
    }
    assert trail[0].after == {"attempt": 1, "worker": reg.worker.pk, "state": "running", "queue": run.queue}
    pieces = [(e.after["pieces_done"], e.after["finished"], e.after["next"]) for e in trail[1:4]]
    assert pieces == [
        (1, {"level_index": 0, "arm": "baseline"}, {"level_index": 0, "arm": "candidate"}),
        (2, {"level_index": 0, "arm": "candidate"}, {"level_index": 1, "arm": "candidate"}),
        (4, {"level_index": 1, "arm": "baseline"}, None),
    ]
    result = RunResult.objects.get(run=run)
    assert trail[-1].after["digest"] == f"sha256:{result.digest}" and trail[-1].after["result"] == result.pk
    assert verify_chain()["valid"]


def test_a_failure_is_audited_with_its_reason(run: Run) -> None:
    reg = register("w1")
    client = _client(reg.token)
    client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    response = client.post(
        f"/api/v1/runs/{run.pk}/fail",
        {"attempt": 1, "kind": "error", "reason": "engine exited with status 1"},
        format="json",
    )
    assert response.status_code == 200, response.content
    started, failed = _trail(run)
    assert (started.action, failed.action) == ("run.started", "run.failed")
    assert failed.actor_label == "worker:w1" and failed.reason == "engine exited with status 1"
    assert failed.after == {"attempt": 1, "worker": reg.worker.pk, "state": "failed", "kind": "error"}


def test_a_redelivered_claim_is_audited_as_a_restart(run: Run) -> None:
    reg = register("w1")
    client = _client(reg.token)
    for _ in range(2):
        assert client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json").status_code == 200
    assert [e.action for e in _trail(run)] == ["run.started", "run.restarted"]
