"""Fixtures for the worker protocol: routes with two versions to compare, registered
workers, and (integration) real processes: a private redis-server this test may stop,
OpenAI-compatible test servers, and `specpact-worker run` agents."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings

from benchmarks_app.services.workers import bootstrap_token_create, worker_register
from tests.factories import example, make_version, variant
from worker.agent.execute import execute
from worker.spec import RunSpec

REPO = Path(settings.BASE_DIR)
PYTHON = sys.executable


# Given endpoints that nothing answers: for runs that are created, claimed, swept or
# relayed in a test but never benchmarked.
UNREACHABLE_ENDPOINTS = {
    "baseline": {"base_url": "http://127.0.0.1:1", "model": "m"},
    "candidate": {"base_url": "http://127.0.0.1:2", "model": "m"},
}
SMALL_LOAD = {"concurrency": [1], "requests_per_level": 2, "max_tokens": 8}


def openai_run(versions: tuple[Any, Any], *, actor: Any = None, **placement: Any) -> Any:
    """A standalone `openai` run of the extraction lane between the two `versions`.
    `placement`: `worker=`, `pool=` and `overrides=`, as `run_create` takes them."""
    from benchmarks_app.services.runs import run_create

    baseline, candidate = versions
    return run_create(
        route=baseline.route,
        baseline=baseline,
        candidate=candidate,
        lane="extraction",
        actor=actor,
        engine_kind="openai",
        endpoints=UNREACHABLE_ENDPOINTS,
        **placement,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(check: Callable[[], Any], timeout_s: float, what: str, every_s: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


HARDWARE = {
    "hostname": "gpu-box-1",
    "cpu_model": "AMD EPYC",
    "cpu_cores": 16,
    "memory_gib": 128.0,
    "gpus": [],
}
GPU_HARDWARE = {
    **HARDWARE,
    "gpus": [{"name": "NVIDIA H200", "memory_total_gib": 139.8, "driver": "570.1", "cuda": "12.8"}],
}


def register(name: str = "w1", hardware: dict[str, Any] | None = None, caps: list[str] | None = None) -> Any:
    bootstrap, _ = bootstrap_token_create(note="tests")
    return worker_register(
        bootstrap=bootstrap,
        name=name,
        host=f"{name}.example",
        hardware=hardware or HARDWARE,
        engines={"transformers": "5.0"},
        capabilities=caps or ["openai", "transformers", "managed"],
        agent_version="0.1.0",
        spec_versions=[1],
        extra_queues=[],
    )


@pytest.fixture
def versions(db: None) -> tuple[Any, Any]:
    """(baseline, candidate) of route `contract-summaries`: n-gram with 4 vs. 6 tokens."""
    doc = example("contract-summaries-ngram")
    baseline = make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 4}))
    candidate = make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 6}))
    return baseline, candidate


# Real processes ---------------------------------------------------------------------


class RedisServer:
    """A private redis-server (no persistence): the tests stop and start it freely."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self._answers, 10, f"redis-server on port {self.port}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer(free_port())
    server.start()
    yield server
    server.stop()


@dataclass
class OpenAIServer:
    url: str
    proc: subprocess.Popen[bytes]


def start_openai_server(*, tokens_per_chunk: int, step_ms: float) -> OpenAIServer:
    port = free_port()
    proc = subprocess.Popen(
        [
            PYTHON,
            str(REPO / "tests/workers/openai_server.py"),
            "--port",
            str(port),
            "--tokens-per-chunk",
            str(tokens_per_chunk),
            "--step-ms",
            str(step_ms),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return httpx.get(url + "/health", timeout=0.5).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(healthy, 20, "the OpenAI-compatible test server")
    return OpenAIServer(url, proc)


@pytest.fixture
def endpoints() -> Iterator[dict[str, Any]]:
    """Two servers: the baseline streams one token per chunk, the candidate three (as
    speculation does), both at 30 ms per chunk, so a run takes a few seconds."""
    base = start_openai_server(tokens_per_chunk=1, step_ms=30)
    cand = start_openai_server(tokens_per_chunk=3, step_ms=30)
    yield {
        "baseline": {"base_url": base.url, "model": "test-model"},
        "candidate": {"base_url": cand.url, "model": "test-model"},
    }
    for server in (base, cand):
        server.proc.terminate()
        server.proc.wait(10)


class Agent:
    """A `specpact-worker run` process (its own process group, so the test can kill the
    agent with its Celery pool children at once, like a machine that dies)."""

    def __init__(self, home: Path, url: str, bootstrap: str, name: str) -> None:
        self.home, self.name = home, name
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "agent.log"
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        env.pop("DJANGO_SETTINGS_MODULE", None)  # the worker must not need Django
        self.proc = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "worker.run_cli",
                "run",
                "--url",
                url,
                "--bootstrap-token",
                bootstrap,
                "--name",
                name,
                "--home",
                str(home),
                "--loglevel",
                "INFO",
            ],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=env,
            start_new_session=True,
        )

    def worker_id(self) -> int:
        import json

        path = self.home / "credentials.json"
        wait_for(path.exists, 60, f"{self.name} to register (log: {self.log})")
        return int(json.loads(path.read_text())["worker_id"])

    def wait_ready(self) -> None:
        wait_for(
            lambda: b"ready." in self.log.read_bytes() or self._died(), 90, f"{self.name}'s Celery worker"
        )
        assert not self._died(), self.log.read_text()

    def _died(self) -> bool:
        return self.proc.poll() is not None

    def children(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def kill_all(self) -> None:
        """kill -9 of the agent and its pool processes."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill_all()


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
    """A real result: the harness run against two OpenAI-compatible test servers."""
    base = start_openai_server(tokens_per_chunk=1, step_ms=2)
    cand = start_openai_server(tokens_per_chunk=3, step_ms=2)
    engine = {"kind": "openai", "model": "test-model"}
    arm = {"contract_version": 1, "digest": "sha256:" + "0" * 64, "speculation_method": "ngram"}
    spec = RunSpec.model_validate(
        {
            "run_id": 1,
            "attempt": 1,
            "route": "contract-summaries",
            "interleave": "abba_per_level",
            "arms": {
                "baseline": {**arm, "engine": {**engine, "base_url": base.url}},
                "candidate": {**arm, "engine": {**engine, "base_url": cand.url}},
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
    try:
        yield execute(spec, lambda done, total: None)
    finally:
        for server in (base, cand):
            server.proc.terminate()
