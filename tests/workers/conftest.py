"""Fixtures for the worker protocol: routes with two versions to compare, and
(integration) real processes: a private redis-server this test may stop, engine
emulators for given endpoints, and `specpact-worker run` agents (tests/support)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks_app.services.workers import bootstrap_token_create
from tests.support.launcher import Emulators
from tests.support.processes import Agent, RedisServer
from worker.agent.execute import execute
from worker.spec import RunSpec


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture
def endpoints() -> Iterator[dict[str, Any]]:
    """Two vLLM-shaped emulators: the baseline streams one token per chunk, the candidate
    three (as speculation does), both at 30 ms per chunk, so a run takes a few seconds.
    Said to be vLLM, the harness asks them for per-chunk token ids, as it asks vLLM."""
    with Emulators() as emulators:
        base = emulators.start("--pattern", "1", "--step-ms", "30")
        cand = emulators.start("--pattern", "3", "--step-ms", "30")
        yield {
            "baseline": {"base_url": base.base_url, "model": "test-model", "server": "vllm"},
            "candidate": {"base_url": cand.base_url, "model": "test-model", "server": "vllm"},
        }


@pytest.fixture
def agents(tmp_path: Path) -> Iterator[Callable[..., Agent]]:
    started: list[Agent] = []

    def start(url: str, name: str = "w1") -> Agent:
        _, token = bootstrap_token_create(note=f"agent {name}")
        agent = Agent(tmp_path / name, url, token, name)
        started.append(agent)
        return agent

    yield start
    for agent in started:
        agent.stop()


@pytest.fixture(scope="session")
def outcome_template() -> Iterator[dict[str, Any]]:
    """A real result: the harness run against two vLLM-shaped engine emulators."""
    with Emulators() as emulators:
        base = emulators.start("--pattern", "1", "--step-ms", "2")
        cand = emulators.start("--pattern", "3", "--step-ms", "2")
        engine = {"kind": "openai", "model": "test-model", "server": "vllm"}
        arm = {"contract_version": 1, "digest": "sha256:" + "0" * 64, "speculation_method": "ngram"}
        spec = RunSpec.model_validate(
            {
                "run_id": 1,
                "attempt": 1,
                "route": "contract-summaries",
                "interleave": "abba_per_level",
                "arms": {
                    "baseline": {**arm, "engine": {**engine, "base_url": base.base_url}},
                    "candidate": {**arm, "engine": {**engine, "base_url": cand.base_url}},
                },
                "workload": {"lane": "extraction", "dataset": "builtin:extraction"},
                "load": {
                    "levels": [{"concurrency": 1}, {"concurrency": 2}],
                    "requests_per_level": 3,
                    "warmup_requests": 0,
                },
                "max_tokens": 8,
                "sampling": {"temperature": 0.0},
                "seed": 0,
                "limits": {"soft_time_limit_s": 60, "time_limit_s": 120},
            }
        )
        yield execute(spec, lambda done, total: None)
