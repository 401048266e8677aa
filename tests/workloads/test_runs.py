"""A run on a registered workload: its spec names the workload by name and digest (and a
trace's arrivals for rate levels); only the worker running it may download it; a deleted
workload can't be benchmarked."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from benchmarks_app.services.lifecycle import run_start
from benchmarks_app.services.runs import run_create
from contracts_app.models import ContractVersion
from kernel.errors import DomainError
from tests.support.workers import UNREACHABLE_ENDPOINTS, register
from tests.workloads.conftest import URL, chat_contract, client_for, upload, upload_contract
from tests.workloads.samples import MOONCAKE, OPENAI
from worker.spec import RunSpec

pytestmark = pytest.mark.django_db
NO_BROKER = "redis://127.0.0.1:9/0"  # a closed port: the dispatch row stays pending


def _run(operator: Any, raw: str, fmt: str, **lane: Any) -> tuple[Any, dict[str, Any]]:
    client = client_for(operator)
    body = upload(client, raw, name=f"lane-{fmt}", format=fmt).json()
    for doc in (chat_contract("builtin:chat"), chat_contract(body["dataset"], **lane)):
        assert upload_contract(client, doc).status_code == 201
    baseline, candidate = ContractVersion.objects.order_by("number")
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = run_create(
            route=baseline.route,
            baseline=baseline,
            candidate=candidate,
            lane="chat",
            actor=operator,
            engine_kind="openai",
            endpoints=UNREACHABLE_ENDPOINTS,
        )
    return run, body


def _worker_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_the_run_spec_records_the_workloads_name_and_digest(operator: Any) -> None:
    run, body = _run(operator, OPENAI, "openai")
    spec = RunSpec.model_validate(run.spec)
    assert spec.workload.dataset == body["dataset"]
    assert (spec.workload.name, spec.workload.digest, spec.workload.arrival) == (
        body["name"],
        body["digest"],
        "poisson",
    )


def test_a_traces_rate_levels_replay_its_arrivals(operator: Any) -> None:
    lane = {"dataset": None, "rate": [0.5, 2.0], "requests_per_level": 3, "max_tokens": 16}
    client = client_for(operator)
    body = upload(client, MOONCAKE, name="trace", format="mooncake").json()
    lane["dataset"] = body["dataset"]
    doc = chat_contract("builtin:chat")
    for d in (doc, {**doc, "measurement": {**doc["measurement"], "workloads": {"chat": lane}}}):
        assert upload_contract(client, d).status_code == 201
    baseline, candidate = ContractVersion.objects.order_by("number")
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = run_create(
            route=baseline.route, baseline=baseline, candidate=candidate, lane="chat", actor=operator,
            engine_kind="openai", endpoints=UNREACHABLE_ENDPOINTS,
        )  # fmt: skip
    assert run.spec["workload"]["arrival"] == "trace"


def test_only_the_worker_running_the_run_downloads_its_workload(operator: Any) -> None:
    run, body = _run(operator, OPENAI, "openai")
    owner, other = register("w1"), register("w2")
    url = f"/api/v1/runs/{run.pk}/workload?attempt=1"
    assert _worker_client(owner.token).get(url).status_code == 403  # not started yet
    run_start(run_id=run.pk, worker=owner.worker, attempt=1)
    response = _worker_client(owner.token).get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    assert "sha256:" + hashlib.sha256(response.content).hexdigest() == body["digest"]
    assert _worker_client(other.token).get(url).status_code == 403
    assert _worker_client(owner.token).get(f"/api/v1/runs/{run.pk}/workload?attempt=2").status_code == 409
    assert client_for(operator).get(url).status_code in (401, 403)  # a user is not a worker


def test_a_deleted_workload_answers_410_to_the_worker_and_new_runs_are_refused(
    operator: Any, admin: Any
) -> None:
    run, body = _run(operator, OPENAI, "openai")
    reg = register("w1")
    run_start(run_id=run.pk, worker=reg.worker, attempt=1)
    client_for(admin).delete(f"{URL}{body['name']}@{body['digest']}/", data={"reason": "gdpr"}, format="json")
    response = _worker_client(reg.token).get(f"/api/v1/runs/{run.pk}/workload?attempt=1")
    assert response.status_code == 410 and "was deleted" in response.json()["detail"]
    baseline, candidate = ContractVersion.objects.order_by("number")
    with pytest.raises(DomainError, match="was deleted"), override_settings(CELERY_BROKER_URL=NO_BROKER):
        run_create(
            route=baseline.route, baseline=baseline, candidate=candidate, lane="chat", actor=operator,
            engine_kind="openai", endpoints=UNREACHABLE_ENDPOINTS,
        )  # fmt: skip
