"""A managed llama.cpp advice batch through a real worker (issue 24 point 6, the demo's
llama-server advice): the demo's `local-advice-llamacpp` contract (Gemma 3 270M GGUF on
llama-server, speculation off), one candidate: the demo's `ngram-simple` at 8 tokens, sent to the CPU
pool (`options.pool`). A real `specpact-worker run` agent launches llama-server twice from
the rendered commands (its own GGUF path put in for `builtin:gemma-3-270m`), the control
plane's Celery worker records the batch, and the advice finishes with a curve.
Slow: skipped without llama-server (the `llamacpp` extra), like tests/worker/test_llama_server.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from advice_app.models import AdviceRun
from advice_app.services import advice_run_create
from benchmarks_app.choices import RunState
from benchmarks_app.models import Run, Worker
from contracts_app.models import Route
from specpact.demo.seed import (
    ADVICE_LANE,
    LLAMACPP_ADVICE_CANDIDATES,
    LLAMACPP_ADVICE_ROUTE,
    llamacpp_advice_document,
)
from tests.support.advice import active_route
from tests.support.launcher import wait_for
from tests.support.processes import Agent, ControlPlaneWorker
from worker.engines.llamacpp import llama_server_binary

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        llama_server_binary() is None,
        reason="llama-server is absent: install the `llamacpp` extra (make .venv/.llamacpp)",
    ),
]


def _active_route(proposer: Any, approver: Any) -> Route:
    return active_route(
        proposer=proposer, approver=approver, document=llamacpp_advice_document(), slug=LLAMACPP_ADVICE_ROUTE
    )


@pytest.mark.timeout(600)
def test_a_llama_server_advice_batch_is_measured_by_a_cpu_worker_and_recorded(
    live_server: Any,
    settings: Any,
    control_plane: ControlPlaneWorker,
    agents: Callable[..., Agent],
    proposer: Any,
    approver: Any,
    operator: Any,
) -> None:
    settings.WORKER_HEARTBEAT_S = 2
    route = _active_route(proposer, approver)
    agent = agents(live_server.url, "cpu-1")
    agent.wait_ready()
    assert Worker.objects.get(pk=agent.worker_id()).hardware_class == "cpu"
    advice = advice_run_create(
        route=route,
        lanes=[ADVICE_LANE],
        candidates=LLAMACPP_ADVICE_CANDIDATES[:1],  # ngram-simple, 8 tokens from a 3-token match
        budget=40,
        seed=3,
        actor=operator,
        # One look of 5 requests per cell: the smallest advice the median rules can decide.
        options={"looks": 1, "n_start": 5, "n_boot": 1000, "pool": "cpu"},
    )
    [run] = Run.objects.filter(advice=advice)
    assert run.queue == "pool.cpu" and run.engine_kind == "managed"

    def final() -> AdviceRun | None:
        current = AdviceRun.objects.get(pk=advice.pk)
        return current if current.is_final else None

    try:
        done = wait_for(final, 540, "the llama-server advice run", every_s=2)
    except AssertionError:
        raise AssertionError(agent.log.read_text()[-4000:] + control_plane.log.read_text()[-4000:]) from None
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.last_error, agent.log.read_text()[-4000:])
    assert done.state == "finished", (done.last_error, control_plane.log.read_text()[-4000:])
    assert [e["status"] for e in done.dispatched.values()] == ["recorded"]
    payload = run.result.payload
    # The worker launched llama-server with its own copy of the GGUF, and the candidate's
    # server drafted with ngram-simple: llama-server reported its drafts and acceptance.
    for arm in ("baseline", "candidate"):
        command = payload[arm]["engine"]["command"]
        assert command[command.index("-m") + 1].endswith(".gguf"), command
        [level] = payload[arm]["levels"]
        assert level["completed"] == 5 and level["errors"] == 0
    assert "ngram-simple" in payload["candidate"]["engine"]["command"]
    speculation = payload["candidate"]["levels"][0]["speculation"]
    assert speculation["reported"] and speculation["draft_tokens"] > 0, speculation
    [point] = done.recommendations[ADVICE_LANE]["curves"]["ngram-simple-8"]
    assert point["n"] >= 5 and point["ci_low"] <= point["speedup"] <= point["ci_high"]
    print(f"\nllama-server advice: {done.recommendations[ADVICE_LANE]['summary']}")
