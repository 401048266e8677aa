"""End to end with real processes (a live API server, a private Redis, a `specpact-worker
run` agent, OpenAI-compatible test servers): the worker downloads a registered multi-turn
workload with its own token, caches it by digest and runs it through the harness; bytes
that don't hash to the run's digest are refused and the run fails saying so."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from benchmarks_app.choices import FINISHED_STATES, RunState
from benchmarks_app.models import Run, RunResult, Worker
from benchmarks_app.services.runs import run_create
from contracts_app.models import ContractVersion
from contracts_app.services.versions import contract_version_create
from tests.support.launcher import wait_for
from tests.support.processes import Agent, RedisServer
from tests.workloads.conftest import chat_contract
from workloads_app.models import WorkloadVersion
from workloads_app.services import UploadOptions, workload_upload

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _conversations(n: int = 6) -> bytes:
    lines = []
    for c in range(n):
        lines.append(
            {"conversation": f"c{c}", "turn": 0, "prompt": f"Ticket {c}: the app crashes on start.\nAgent:"}
        )
        lines.append({"conversation": f"c{c}", "turn": 1, "prompt": "\nCustomer: it still crashes.\nAgent:"})
    return "".join(json.dumps(x) + "\n" for x in lines).encode()


def _run_on_workload(operator: Any, endpoints: dict[str, Any], worker: Worker) -> tuple[Run, WorkloadVersion]:
    upload = workload_upload(
        name="support-tickets",
        raw=_conversations(),
        options=UploadOptions(source="production logs"),
        actor=operator,
    )
    version = upload.version
    for doc in (chat_contract("builtin:chat"), chat_contract(version.dataset)):
        contract_version_create(slug="support-chat", document=doc, source_format="json", actor=operator)
    baseline, candidate = ContractVersion.objects.order_by("number")
    run = run_create(
        route=baseline.route,
        baseline=baseline,
        candidate=candidate,
        lane="chat",
        actor=None,
        engine_kind="openai",
        endpoints=endpoints,
        worker=worker,
        overrides={"concurrency": [1, 2], "requests_per_level": 4, "max_tokens": 8, "warmup_requests": 0},
    )
    return run, version


def _finished(run_id: int, agent: Agent) -> Run:
    def done() -> Run | None:
        run = Run.objects.get(pk=run_id)
        return run if run.state in FINISHED_STATES else None

    try:
        return wait_for(done, 120, f"run {run_id} to finish")
    except AssertionError:
        raise AssertionError(f"run {run_id}: agent log:\n{agent.log.read_text()[-4000:]}") from None


def _start(agents: Callable[..., Agent], url: str) -> tuple[Agent, Worker]:
    agent = agents(url, "w1")
    worker = Worker.objects.get(pk=agent.worker_id())
    agent.wait_ready()
    return agent, worker


def test_a_worker_downloads_caches_and_runs_a_multi_turn_workload(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    endpoints: dict[str, Any],
    operator: Any,
) -> None:
    agent, worker = _start(agents, live_server.url)
    run, version = _run_on_workload(operator, endpoints, worker)
    run = _finished(run.pk, agent)
    assert run.state == RunState.SUCCEEDED, run.last_error
    payload = RunResult.objects.get(run=run).payload
    for arm in ("baseline", "candidate"):
        assert payload[arm]["workload"]["digest"] == version.digest
        ids = [r["prompt_id"] for level in payload[arm]["levels"] for r in level["requests"]]
        assert any(i.endswith("#1") for i in ids)  # second turns were sent and measured
        assert all(r["error"] is None for level in payload[arm]["levels"] for r in level["requests"])
    cached = agent.home / "workloads" / version.digest.removeprefix("sha256:") / "support-tickets.jsonl"
    assert cached.is_file()


def test_a_worker_refuses_a_workload_whose_bytes_dont_match_the_digest(
    live_server: Any,
    protocol: RedisServer,
    agents: Callable[..., Agent],
    endpoints: dict[str, Any],
    operator: Any,
) -> None:
    agent, worker = _start(agents, live_server.url)
    # The stored bytes are changed behind the immutability trigger (as a disk fault or an
    # attacker with database access would), before the run is dispatched.
    tampered = _conversations().replace(b"crashes on start", b"crashes at night")
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE workloads_app_workloadcontent DISABLE TRIGGER workload_content_immutable")
    try:
        upload = workload_upload(
            name="support-tickets", raw=_conversations(), options=UploadOptions(), actor=operator
        )
        with connection.cursor() as cursor:
            cursor.execute("UPDATE workloads_app_workloadcontent SET data = %s", [tampered])
    finally:
        with connection.cursor() as cursor:
            cursor.execute(
                "ALTER TABLE workloads_app_workloadcontent ENABLE TRIGGER workload_content_immutable"
            )
    digest = upload.version.digest
    for doc in (chat_contract("builtin:chat"), chat_contract(upload.version.dataset)):
        contract_version_create(slug="support-chat", document=doc, source_format="json", actor=operator)
    baseline, candidate = ContractVersion.objects.order_by("number")
    run = run_create(
        route=baseline.route, baseline=baseline, candidate=candidate, lane="chat", actor=None,
        engine_kind="openai", endpoints=endpoints, worker=worker,
        overrides={"concurrency": [1], "requests_per_level": 2, "max_tokens": 8, "warmup_requests": 0},
    )  # fmt: skip
    run = _finished(run.pk, agent)
    assert run.state == RunState.FAILED
    assert f"not to {digest} that the run names; refusing to benchmark on them" in run.last_error
    assert "workload support-tickets: the" in run.last_error
    assert not RunResult.objects.filter(run=run).exists()
    assert [h["event"] for h in run.history][-1] == RunState.FAILED
    assert not (agent.home / "workloads" / digest.removeprefix("sha256:") / "support-tickets.jsonl").exists()
