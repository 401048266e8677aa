"""Runs over the API: creation with its outbox row, the worker's claim, progress, failure,
cancel, and the idempotent, validated result upload."""

from __future__ import annotations

import copy
import csv
import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from benchmarks_app.choices import RunState
from benchmarks_app.models import OutboxMessage, Run, RunResult
from tests.support.factories import example, make_version, variant
from tests.support.workers import register

pytestmark = pytest.mark.django_db


def _worker_client(worker_token: str) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Token {worker_token}")


def _payload(template: dict[str, Any], run: Run, attempt: int = 1) -> dict[str, Any]:
    return {**copy.deepcopy(template), "run_id": run.pk, "attempt": attempt}


def test_creating_a_run_writes_its_dispatch_in_the_same_transaction(run: Run) -> None:
    message = OutboxMessage.objects.get(run=run)
    assert run.state == RunState.QUEUED and run.queue == "pool.any"
    assert message.payload == run.spec and message.attempt == 1 and message.queue == "pool.any"
    # Published only after commit (the relay's tests cover that part).
    assert message.published_at is None and message.tries == 0
    assert run.spec["spec_version"] == 1 and run.spec["run_id"] == run.pk
    assert run.progress_total == 2 * 2 * 3


def test_viewers_cannot_create_runs_and_bad_input_is_a_problem(
    versions: Any, viewer: Any, operator: Any
) -> None:
    client = APIClient()
    client.force_login(viewer)
    assert client.post("/api/v1/runs/", {}, format="json").status_code == 403
    client.force_login(operator)
    response = client.post(
        "/api/v1/runs/",
        {"route": "contract-summaries", "candidate_version": 2, "baseline_version": 1, "lane": "chat"},
        format="json",
    )
    assert response.status_code == 400 and response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"][0]["path"] == "lane"
    response = client.post(
        "/api/v1/runs/",
        {
            "route": "contract-summaries",
            "candidate_version": 2,
            "baseline_version": 1,
            "lane": "extraction",
            "engine": "openai",
        },
        format="json",
    )
    assert response.status_code == 400
    assert {e["path"] for e in response.json()["errors"]} == {"endpoints.baseline", "endpoints.candidate"}
    assert not Run.objects.exists()


def test_the_worker_claims_reports_progress_and_uploads_once(
    run: Run, outcome_template: dict[str, Any]
) -> None:
    reg = register("w1")
    client = _worker_client(reg.token)
    start = client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    assert start.status_code == 200 and start.json()["state"] == "running"
    progress = client.post(
        f"/api/v1/runs/{run.pk}/progress", {"attempt": 1, "done": 5, "total": 12}, format="json"
    )
    assert progress.status_code == 200 and progress.json()["progress"] == {"done": 5, "total": 12}

    payload = _payload(outcome_template, run)
    first = client.put(f"/api/v1/runs/{run.pk}/result", payload, format="json")
    assert first.status_code == 201, first.content
    again = client.put(f"/api/v1/runs/{run.pk}/result", payload, format="json")
    assert again.status_code == 200 and again.json()["created"] is False
    assert RunResult.objects.filter(run=run).count() == 1
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED and run.progress_done == run.progress_total
    # A redelivered task for the finished run is told so and drops it.
    late = client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    assert late.status_code == 409 and late.json()["code"] == "run_finished"


def test_another_workers_token_cannot_post_the_result(run: Run, outcome_template: dict[str, Any]) -> None:
    owner, other = register("w1"), register("w2")
    _worker_client(owner.token).post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    response = _worker_client(other.token).put(
        f"/api/v1/runs/{run.pk}/result", _payload(outcome_template, run), format="json"
    )
    assert response.status_code == 403
    assert "belongs to worker" in response.json()["detail"]
    assert (
        _worker_client(other.token)
        .post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
        .status_code
        == 403
    )
    assert not RunResult.objects.exists()


def test_a_users_token_cannot_post_results(run: Run, operator: Any, outcome_template: dict[str, Any]) -> None:
    client = APIClient()
    client.force_login(operator)
    response = client.put(f"/api/v1/runs/{run.pk}/result", _payload(outcome_template, run), format="json")
    assert response.status_code == 401


def _impossible(template: dict[str, Any], run: Run, change: str) -> dict[str, Any]:
    payload = _payload(template, run)
    request = payload["candidate"]["levels"][1]["requests"][0]
    if change == "negative_latency":
        request["ttft_ms"] = -4.0
    elif change == "too_many_tokens":
        payload["candidate"]["max_tokens"] = 1000
        request["output_tokens"] = 900
    elif change == "wrong_levels":
        payload["baseline"]["levels"] = payload["baseline"]["levels"][:1]
    elif change == "other_run":
        payload["run_id"] = run.pk + 1000
    elif change == "garbage":
        payload = {"attempt": 1, "hello": "world"}
    return payload


@pytest.mark.parametrize(
    ("change", "path_part"),
    [
        ("negative_latency", "candidate.levels[1].requests[0].ttft_ms"),
        ("too_many_tokens", "candidate"),
        ("wrong_levels", "baseline.levels"),
        ("other_run", "run_id"),
        ("garbage", "baseline"),
    ],
)
def test_a_malformed_or_impossible_result_is_a_400_with_paths_and_stored_nowhere(
    run: Run, outcome_template: dict[str, Any], change: str, path_part: str
) -> None:
    reg = register("w1")
    client = _worker_client(reg.token)
    client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    response = client.put(
        f"/api/v1/runs/{run.pk}/result", _impossible(outcome_template, run, change), format="json"
    )
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    paths = [e["path"] for e in response.json()["errors"]]
    assert any(p.startswith(path_part) for p in paths), paths
    assert not RunResult.objects.exists()
    run.refresh_from_db()
    assert run.state == RunState.RUNNING


def test_a_result_for_a_stale_attempt_is_refused(run: Run, outcome_template: dict[str, Any]) -> None:
    reg = register("w1")
    client = _worker_client(reg.token)
    client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    response = client.put(
        f"/api/v1/runs/{run.pk}/result", _payload(outcome_template, run, attempt=2), format="json"
    )
    assert response.status_code == 409 and response.json()["code"] == "stale_attempt"


def test_cancel_stops_progress_and_refuses_the_result(
    run: Run, operator: Any, outcome_template: dict[str, Any]
) -> None:
    reg = register("w1")
    client = _worker_client(reg.token)
    client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    as_operator = APIClient()
    as_operator.force_login(operator)
    cancel = as_operator.post(f"/api/v1/runs/{run.pk}/cancel", {"reason": "wrong lane"}, format="json")
    assert cancel.status_code == 200 and cancel.json()["state"] == "cancelled"
    assert "wrong lane" in cancel.json()["last_error"]
    progress = client.post(
        f"/api/v1/runs/{run.pk}/progress", {"attempt": 1, "done": 1, "total": 12}, format="json"
    )
    assert progress.status_code == 409
    result = client.put(f"/api/v1/runs/{run.pk}/result", _payload(outcome_template, run), format="json")
    assert result.status_code == 409 and not RunResult.objects.exists()
    assert as_operator.post(f"/api/v1/runs/{run.pk}/cancel", {}, format="json").status_code == 409


def test_a_refused_spec_lands_as_the_runs_last_error(run: Run) -> None:
    reg = register("w1")
    reason = "this worker reads run specification version 1; the run was sent version 2."
    response = _worker_client(reg.token).post(
        f"/api/v1/runs/{run.pk}/fail", {"attempt": 1, "kind": "refused", "reason": reason}, format="json"
    )
    assert response.status_code == 200
    run.refresh_from_db()
    assert run.state == RunState.FAILED and run.last_error == reason


def test_a_worker_timeout_ends_the_run_timed_out(run: Run) -> None:
    reg = register("w1")
    client = _worker_client(reg.token)
    client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json")
    client.post(
        f"/api/v1/runs/{run.pk}/fail", {"attempt": 1, "kind": "timeout", "reason": "over 60 s"}, format="json"
    )
    run.refresh_from_db()
    assert run.state == RunState.TIMED_OUT and run.last_error == "over 60 s"


def test_run_detail_list_and_page(run: Run, viewer: Any) -> None:
    client = APIClient()
    client.force_login(viewer)
    detail = client.get(f"/api/v1/runs/{run.pk}/").json()
    assert detail["spec"]["run_id"] == run.pk and detail["progress"]["total"] == 12
    listing = client.get("/api/v1/runs/?state=queued").json()
    assert [r["id"] for r in listing["results"]] == [run.pk]
    html = client.get(f"/runs/{run.pk}/").content.decode()
    assert "<progress" in html and "pool.any" in html


def test_the_spec_schema_is_published() -> None:
    body = APIClient().get("/api/v1/runs/spec-schema").json()
    assert body["spec_version"] == 1
    assert body["schema"]["properties"]["spec_version"]["const"] == 1


def test_an_engine_the_contract_cannot_use_is_refused_at_creation(operator: Any) -> None:
    doc = example("local-gemma-prompt-lookup")
    make_version("local-extraction", variant(doc, **{"speculation": {"method": "none"}}))
    make_version("local-extraction", doc)
    client = APIClient()
    client.force_login(operator)
    body = {"route": "local-extraction", "baseline_version": 1, "candidate_version": 2}
    managed = client.post("/api/v1/runs/", {**body, "engine": "managed"}, format="json")
    assert managed.status_code == 400 and "cannot launch a transformers server" in managed.json()["detail"]
    ok = client.post("/api/v1/runs/", {**body, "requests_per_level": 2}, format="json")
    assert ok.status_code == 201 and ok.json()["engine_kind"] == "transformers"
    assert ok.json()["queue"] == "engine.transformers"
    assert not Run.objects.filter(engine_kind="managed").exists()


# Export: a run's raw samples as CSV.


def _finish(run: Run, outcome: dict[str, Any]) -> None:
    worker = APIClient(HTTP_AUTHORIZATION=f"Token {register('w1').token}")
    assert worker.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json").status_code == 200
    payload = {**copy.deepcopy(outcome), "run_id": run.pk, "attempt": 1}
    assert worker.put(f"/api/v1/runs/{run.pk}/result", payload, format="json").status_code == 201


def test_a_runs_requests_download_as_csv(run: Run, outcome_template: dict[str, Any], viewer: Any) -> None:
    _finish(run, outcome_template)
    client = APIClient()
    client.force_login(viewer)
    response = client.get(f"/api/v1/runs/{run.pk}/result.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    levels = [level for arm in ("baseline", "candidate") for level in outcome_template[arm]["levels"]]
    expected = sum(len(level["requests"]) for level in levels)
    assert len(rows) == expected
    assert {r["arm"] for r in rows} == {"baseline", "candidate"}
    first = outcome_template["baseline"]["levels"][0]["requests"][0]
    assert float(rows[0]["ttft_ms"]) == pytest.approx(first["ttft_ms"])
    assert int(rows[0]["output_tokens"]) == first["output_tokens"]


def test_no_csv_before_the_result(run: Run, viewer: Any) -> None:
    client = APIClient()
    client.force_login(viewer)
    response = client.get(f"/api/v1/runs/{run.pk}/result.csv")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")
