"""Fixtures for the harness tests: reference servers in their own processes."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


class RefServer:
    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc, self.port = proc, port
        self.base_url = f"http://127.0.0.1:{port}"

    def truth(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(self.base_url + "/truth") as resp:
            return json.load(resp)

    def reset(self) -> None:
        urllib.request.urlopen(urllib.request.Request(self.base_url + "/truth/reset", method="POST")).close()


def start_reference(*args: str) -> RefServer:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.worker.reference_server", "--port", "0", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"reference server did not start: {line!r}")
    return RefServer(proc, int(line.split()[1]))


@pytest.fixture(scope="module")
def reference_server() -> Iterator[Callable[..., RefServer]]:
    """A factory: ``reference_server("--ttft-ms", "5")``; all are stopped after the module."""
    started: list[RefServer] = []

    def make(*args: str) -> RefServer:
        server = start_reference(*args)
        started.append(server)
        return server

    yield make
    for server in started:
        server.proc.terminate()
        server.proc.wait(timeout=10)


def write_prompts(path: Path, n: int, tag: str = "p") -> Path:
    """A JSONL workload of ``n`` distinct prompts."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(
                json.dumps({"id": f"{tag}{i}", "prompt": f"{tag} prompt {i}: tell me about item {i}"}) + "\n"
            )
    return path
