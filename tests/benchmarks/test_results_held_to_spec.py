"""A result measured with another seed, other sampling or another workload than its run
specified is not evidence for that run: the upload is refused 400 naming the field, and
nothing is stored (issue 21). Before, only the levels and max_tokens were held to the spec."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from benchmarks_app.models import Run, RunResult
from benchmarks_app.services.runs import run_create
from contracts_app.models import ContractVersion
from tests.support.workers import UNREACHABLE_ENDPOINTS, register
from tests.workloads.conftest import chat_contract, client_for, upload, upload_contract
from tests.workloads.samples import OPENAI

pytestmark = pytest.mark.django_db

NO_BROKER = "redis://127.0.0.1:9/0"


def _claimed(run: Run) -> APIClient:
    """The worker that claimed the run (only it may upload)."""
    client = APIClient(HTTP_AUTHORIZATION=f"Token {register('w1').token}")
    assert client.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json").status_code == 200
    return client


def _upload(run: Run, payload: dict[str, Any], client: APIClient | None = None) -> Any:
    return (client or _claimed(run)).put(f"/api/v1/runs/{run.pk}/result", payload, format="json")


def _refused(response: Any) -> dict[str, str]:
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert not RunResult.objects.exists()
    return {e["path"]: e["message"] for e in response.json()["errors"]}


def _as_run(template: dict[str, Any], run: Run) -> dict[str, Any]:
    return {**copy.deepcopy(template), "run_id": run.pk, "attempt": 1}


def test_a_result_with_another_seed_is_refused_naming_it(run: Run, outcome_template: dict[str, Any]) -> None:
    assert run.spec["seed"] == 0
    payload = _as_run(outcome_template, run)
    payload["candidate"]["seed"] = 7
    errors = _refused(_upload(run, payload))
    assert errors == {"candidate.seed": "is 7, the run's seed is 0"}


def test_a_result_with_other_sampling_is_refused_naming_it(
    run: Run, outcome_template: dict[str, Any]
) -> None:
    assert run.spec["sampling"]["temperature"] == 0.0  # the contract allows greedy: the spec fixes it
    payload = _as_run(outcome_template, run)
    payload["baseline"]["sampling"] = {"temperature": 0.9, "top_p": 0.95}
    errors = _refused(_upload(run, payload))
    assert list(errors) == ["baseline.sampling"] and "temperature': 0.9" in errors["baseline.sampling"]


def test_a_result_measured_on_another_workload_is_refused_naming_its_digest(
    operator: Any, outcome_template: dict[str, Any]
) -> None:
    """A run on a registered workload, shaped like the template (levels, requests, tokens):
    the template's own result names no digest, so it is refused until it names the run's."""
    client = client_for(operator)
    body = upload(client, OPENAI, name="chat-lane", format="openai").json()
    shape = {"concurrency": [1, 2], "requests_per_level": 3, "max_tokens": 8}
    for dataset in ("builtin:chat", body["dataset"]):
        doc = chat_contract(dataset)
        lane = {**doc["measurement"]["workloads"]["chat"], **shape}
        doc = {**doc, "measurement": {**doc["measurement"], "workloads": {"chat": lane}}}
        assert upload_contract(client, doc).status_code == 201
    baseline, candidate = ContractVersion.objects.order_by("number")
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = run_create(
            route=baseline.route, baseline=baseline, candidate=candidate, lane="chat", actor=operator,
            engine_kind="openai", endpoints=UNREACHABLE_ENDPOINTS,
        )  # fmt: skip
    assert run.spec["workload"]["digest"] == body["digest"]
    payload = _as_run(outcome_template, run)
    payload["baseline"]["workload"]["digest"] = "sha256:" + "e" * 64
    worker = _claimed(run)
    errors = _refused(_upload(run, payload, worker))
    assert set(errors) == {"baseline.workload.digest", "candidate.workload.digest"}
    assert (
        errors["baseline.workload.digest"]
        == f"is 'sha256:{'e' * 64}', the run's workload is {body['digest']}"
    )
    assert errors["candidate.workload.digest"] == f"is None, the run's workload is {body['digest']}"
    # Measured on the run's own workload, the same result is taken.
    for arm in ("baseline", "candidate"):
        payload[arm]["workload"]["digest"] = body["digest"]
    assert _upload(run, payload, worker).status_code == 201
