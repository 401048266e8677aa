"""A real worker uploads a realistic result through the real API, and the release reaches
its verdict.

Real processes: the API served by a live HTTP server, a private redis-server, a
`specpact-worker run` agent (a real Celery worker), and the harness benchmarking the test
engine server (tests/benchmarks/openai_server.py), which the agent's managed engine launches
from the release's rendered `vllm serve … --port N` line (tests/hardening/bin/vllm starts
the test server for it). The run: 4 levels × 128 requests × 512 tokens, both arms; its
result is several MiB, over the 1 MiB that every other endpoint allows, and goes up gzipped.

The engine listens on a free port the agent picks, not the spec's 18080
(worker/engines/managed.py `on_free_port`). Before, with two suites on one machine, the
second test engine could not bind 18080, the agent's health check was answered by the
other test's engine, and the harness measured that one until it stopped (then every
request got "connection refused": 120 of 128 errors at concurrency 8).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks_app.choices import RunState
from benchmarks_app.models import Run, RunResult
from benchmarks_app.services.workers import bootstrap_token_create
from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_create
from tests.support.factories import example, make_version, variant
from tests.support.launcher import REPO, wait_for
from tests.support.processes import Agent, RedisServer
from workloads_app.services import UploadOptions, workload_upload

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

BIN = Path(__file__).resolve().parent / "bin"
LANE_SETTINGS = {"concurrency": [8, 16, 32, 64], "requests_per_level": 128, "max_tokens": 512}


def _uncapped_extraction_workload(actor: Any) -> str:
    """A registered workload of 128 extraction prompts that name no `max_tokens` of their
    own (the built-in lane asks for 96 per prompt), so every request runs to the lane's 512."""
    lines = [
        {"prompt": f"Invoice {i}: list every line item with its amount and currency as JSON.\n"}
        for i in range(128)
    ]
    raw = "".join(json.dumps(line) + "\n" for line in lines).encode()
    upload = workload_upload(
        name="invoices-uncapped", raw=raw, options=UploadOptions(source="test"), actor=actor
    )
    return upload.version.dataset


# Release runs of launched engines go to RUN_MANAGED_QUEUE (`pool.gpu` by default, which a
# CPU machine doesn't qualify for): an operator pool this agent joins.
RELEASE_POOL = "pool.release-bench"


class GpuPoolAgent(Agent):
    """An agent that also consumes the release pool and finds the test `vllm` first on its
    PATH."""

    def __init__(self, home: Path, url: str, bootstrap: str, name: str) -> None:
        self.home, self.name = home, name
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "agent.log"
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        # bin/vllm first, and this interpreter's folder (its `python3`, with aiohttp) next.
        env["PATH"] = os.pathsep.join([str(BIN), str(Path(sys.executable).parent), env.get("PATH", "")])
        env.pop("DJANGO_SETTINGS_MODULE", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "worker.run_cli", "run", "--url", url, "--bootstrap-token", bootstrap,
             "--name", name, "--home", str(home), "--queue", RELEASE_POOL, "--loglevel", "INFO"],
            stdout=self.log.open("wb"), stderr=subprocess.STDOUT, cwd=REPO, env=env, start_new_session=True,
        )  # fmt: skip


@pytest.fixture
def broker(settings: Any) -> Any:
    server = RedisServer()
    server.start()
    settings.CELERY_BROKER_URL = server.url
    settings.WORKER_BROKER_URL = server.url
    settings.WORKER_HEARTBEAT_S = 2
    settings.RUN_MANAGED_QUEUE = RELEASE_POOL
    yield server
    server.close()


def test_a_real_worker_uploads_a_4x128x512_result_and_the_release_gets_its_verdict(
    live_server: Any,
    broker: Any,
    tmp_path: Path,
    proposer: Any,
    approver: Any,
    settings: Any,
) -> None:
    lane = {"extraction": {"dataset": _uncapped_extraction_workload(proposer), **LANE_SETTINGS}}
    doc = variant(example("contract-summaries-ngram"), **{"measurement.workloads": lane})
    v1 = make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 4}))
    make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 6}))
    Route.objects.filter(pk=v1.route_id).update(active_version=v1)

    _, bootstrap = bootstrap_token_create(note="real worker")
    agent = GpuPoolAgent(tmp_path / "w1", live_server.url, bootstrap, "w1")
    try:
        agent.worker_id()
        agent.wait_ready()
        release = release_create(route="contract-summaries", candidate_version=2, actor=proposer)
        assert release.state == "benchmarking"
        [run] = Run.objects.filter(release=release)
        assert run.queue == RELEASE_POOL and run.engine_kind == "managed"

        def concluded() -> Release | None:
            r = Release.objects.get(pk=release.pk)
            return r if r.state != "benchmarking" else None

        try:
            done = wait_for(concluded, 600, "the release's verdict", every_s=1)
        except AssertionError:
            raise AssertionError(
                f"run is {Run.objects.get(pk=run.pk).state}: {Run.objects.get(pk=run.pk).last_error}\n"
                + agent.log.read_text()[-6000:]
            ) from None
    finally:
        agent.stop()

    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.last_error, agent.log.read_text()[-4000:])
    assert done.state == "awaiting_review", (done.state, done.failure_reason)
    assert (
        done.gate_verdict in ("pass", "marginal", "fail") and done.gate_result["verdict"] == done.gate_verdict
    )
    result = RunResult.objects.get(run=run)
    payload = result.payload
    raw = len(json.dumps(payload, separators=(",", ":")))
    levels = [level for arm in ("baseline", "candidate") for level in payload[arm]["levels"]]
    errors = {r["error"] for level in levels for r in level["requests"] if r.get("error")}
    assert [level["errors"] for level in levels] == [0] * 8, sorted(errors)[:5]
    for arm in ("baseline", "candidate"):  # measured on the port the agent picked, as it says
        told = run.spec["arms"][arm]["engine"]["base_url"]
        assert payload[arm]["engine"]["base_url"] != told, payload[arm]["engine"]
    assert all(r["output_tokens"] == 512 for level in levels for r in level["requests"])
    assert raw > 4 * settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # what the probe saw refused with an HTML 400
    # n-gram with 4 and with 6 speculative tokens: 2 and 3 tokens a chunk (bin/vllm).
    for arm, per_chunk in (("baseline", 2), ("candidate", 3)):
        levels = payload[arm]["levels"]
        assert payload[arm]["schema_version"] == 2
        assert [lv["concurrency"] for lv in levels] == [8, 16, 32, 64]
        assert all(lv["requests_total"] == 128 and lv["errors"] == 0 for lv in levels)
        assert all(r["output_tokens"] == 512 for lv in levels for r in lv["requests"])
        assert {lv["tokens_per_chunk"]["max"] for lv in levels} == {per_chunk}
        assert [agg["requests"] for agg in result.aggregates[arm]] == [128] * 4
