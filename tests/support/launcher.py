"""Start the engine emulator in its own process, race-free, and stop it.

The emulator binds port 0 and prints ``PORT <n>`` once it listens, so no port is picked
first and raced for. Where the code under test must be told a port before it launches a
server itself (a managed engine, a private redis-server), ``reserved_port()`` holds the
port bound, never listening, for as long as the test needs it: nothing else can bind
it, connections to it are refused, and a server that sets SO_REUSEADDR (asyncio's
servers, llama-server's cpp-httplib, redis-server) binds over it.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EMULATOR_MODULE = "tests.support.engine_emulator"

# The harness-accuracy reference: a vLLM-shaped server serving model "ref" that streams
# 1, 3, 2, 4 tokens per step (16 steps at most) and reports them as n-gram drafts of 3.
REFERENCE = (
    "--served-model-name", "ref", "--ttft-ms", "50", "--step-ms", "20", "--pattern", "1,3,2,4",
    "--chunks", "16", "--speculation", json.dumps({"method": "ngram", "num_speculative_tokens": 3}),
)  # fmt: skip


def wait_for(check: Callable[[], Any], timeout_s: float, what: str, every_s: float = 0.2) -> Any:
    """``check()``'s first truthy value; AssertionError naming ``what`` after the timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


@contextmanager
def reserved_port() -> Iterator[int]:
    """A loopback port that stays this test's until the block ends (see the module doc)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def emulator_argv(*args: str, port: int = 0) -> list[str]:
    """The command line that runs the emulator (for code under test that launches it)."""
    return [sys.executable, "-m", EMULATOR_MODULE, "--port", str(port), *args]


class Emulator:
    """One running emulator process and the calls tests make to it."""

    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc, self.port = proc, port
        self.base_url = f"http://127.0.0.1:{port}"

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.base_url + path, timeout=10) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def get_json(self, path: str) -> Any:
        status, text = self.get(path)
        assert status == 200, (path, status, text)
        return json.loads(text)

    def post_json(self, path: str, body: Any = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.base_url + path,
            data=json.dumps(body if body is not None else {}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as resp:
                return resp.status, json.load(resp)
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def healthy(self) -> bool:
        try:
            return self.get("/health")[0] == 200
        except OSError:
            return False

    def truth(self) -> list[dict[str, Any]]:
        return list(self.get_json("/truth"))

    def reset_truth(self) -> None:
        assert self.post_json("/truth/reset")[0] == 200

    def reset_counters(self) -> None:
        """An engine restart: counters, acceptance averages and truth back to zero."""
        assert self.post_json("/admin/reset")[0] == 200

    def set_pattern(self, pattern: list[int]) -> None:
        """Tokens per step for requests that arrive from now on."""
        status, body = self.post_json("/admin/acceptance", {"pattern": pattern})
        assert status == 200, body

    def counters(self) -> dict[str, Any]:
        return dict(self.get_json("/admin/counters"))

    def metrics(self) -> str:
        status, text = self.get("/metrics")
        assert status == 200, (status, text)
        return text

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _read_port(proc: subprocess.Popen[str], timeout_s: float) -> int:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout_s)
    line = proc.stdout.readline() if ready else ""
    if not line.startswith("PORT "):
        proc.kill()
        proc.wait(10)
        raise RuntimeError(f"the engine emulator did not start (exit {proc.returncode}): {line!r}")
    return int(line.split()[1])


def start_emulator(
    *args: str, env: dict[str, str] | None = None, startup_timeout_s: float = 20.0
) -> Emulator:
    """Launch ``python -m tests.support.engine_emulator --port 0 *args``; healthy on return.
    ``env`` is added to this process's environment (e.g. ``VLLM_SERVER_DEV_MODE``)."""
    proc = subprocess.Popen(
        emulator_argv(*args),
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    emulator = Emulator(proc, _read_port(proc, startup_timeout_s))
    try:
        wait_for(emulator.healthy, startup_timeout_s, f"the engine emulator on port {emulator.port}", 0.05)
    except AssertionError:
        emulator.stop()
        raise
    return emulator


class Emulators:
    """Emulators started on demand and all stopped together (``with Emulators() as e``)."""

    def __init__(self) -> None:
        self.started: list[Emulator] = []

    def start(self, *args: str, env: dict[str, str] | None = None) -> Emulator:
        emulator = start_emulator(*args, env=env)
        self.started.append(emulator)
        return emulator

    def stop(self) -> None:
        for emulator in self.started:
            emulator.stop()
        self.started = []

    def __enter__(self) -> Emulators:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def emulator_factory(scope: Any = "module") -> Any:
    """A pytest fixture of that scope: a factory ``emulator(*args, env=None)`` whose
    emulators all stop when the scope ends. ``emulator = emulator_factory()`` in a conftest."""

    @pytest.fixture(scope=scope)
    def fixture() -> Iterator[Callable[..., Emulator]]:
        with Emulators() as pool:
            yield pool.start

    return fixture
