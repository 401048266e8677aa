"""The demo's path with a real model: a release-style run of the Gemma 3 270M GGUF on the
in-process `transformers` engine, baseline (no speculation) vs. prompt lookup, through a
real `specpact-worker run` agent. Slow: the model loads in the worker (~45 s on 2 cores)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from benchmarks_app.choices import FINISHED_STATES, RunState
from benchmarks_app.models import Run, Worker
from benchmarks_app.services.runs import run_create
from tests.support.factories import example, make_version, variant
from tests.support.launcher import wait_for
from tests.support.processes import Agent, RedisServer

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_transformers_run_of_the_real_model_lands_with_both_arms(
    live_server: Any, settings: Any, redis_server: RedisServer, agents: Callable[..., Agent]
) -> None:
    settings.CELERY_BROKER_URL = settings.WORKER_BROKER_URL = redis_server.url
    settings.WORKER_HEARTBEAT_S = 2
    doc = example("local-gemma-prompt-lookup")
    baseline = make_version("local-extraction", variant(doc, **{"speculation": {"method": "none"}}))
    candidate = make_version("local-extraction", doc)
    agent = agents(live_server.url, "cpu-1")
    worker = Worker.objects.get(pk=agent.worker_id())
    agent.wait_ready()
    assert "transformers" in worker.capabilities and worker.hardware_class == "cpu"

    run = run_create(
        route=baseline.route,
        baseline=baseline,
        candidate=candidate,
        lane="extraction",
        actor=None,
        worker=worker,
        overrides={"requests_per_level": 2, "max_tokens": 24, "warmup_requests": 0},
    )
    assert run.engine_kind == "transformers"
    assert run.spec["arms"]["candidate"]["engine"]["prompt_lookup_num_tokens"] == 10
    assert run.spec["arms"]["baseline"]["engine"]["method"] == "none"

    def finished() -> Run | None:
        current = Run.objects.get(pk=run.pk)
        return current if current.state in FINISHED_STATES else None

    try:
        done = wait_for(finished, 400, "the transformers run", every_s=2)
    except AssertionError:
        raise AssertionError(agent.log.read_text()[-6000:]) from None
    assert done.state == RunState.SUCCEEDED, done.last_error
    payload = done.result.payload
    for arm in ("baseline", "candidate"):
        [level] = payload[arm]["levels"]
        assert level["completed"] == 2 and payload[arm]["engine"]["kind"] == "transformers"
    assert payload["candidate"]["engine"]["method"].get("prompt_lookup_num_tokens") == 10
    # Prompt lookup accepts drafted tokens on an input-grounded lane: steps carry several.
    assert payload["candidate"]["levels"][0]["tokens_per_chunk"]["max"] > 1
