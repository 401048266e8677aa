"""llama.cpp conformance against the emulator's llama-server shape: where a build says only
THAT its slots speculate, the probe holds that against the contract and a probe completion's
`timings.draft_n` shows drafting; where the slot's params name the type, the method is
verified. The real server: tests/live/test_llama_server_coverage.py (slow)."""

from __future__ import annotations

import json
from typing import Any

from contracts_app.document import validate_document
from live_app.conformance import probe_engine
from live_app.conformance.readers.llamacpp import PROBE_TOKENS
from tests.live.conftest import MODEL, fetcher
from tests.support.factories import example
from tests.support.rules import on_engine


def _doc(method: str = "ngram") -> Any:
    doc = on_engine(example("contract-summaries-ngram"), "llamacpp")
    doc["target"] = {"model": MODEL, "engine": "llamacpp", "engine_version": "b11434"}
    if method == "none":
        doc["speculation"] = {"method": "none"}
    else:
        doc["speculation"] = {"method": "ngram", "num_speculative_tokens": 8,
                              "params": {"prompt_lookup_max": 3, "ngram_variant": "simple"}}  # fmt: skip
    doc["compatibility"]["batching"]["max_batch_size"] = 1
    return validate_document(doc)


def _server(emulator: Any, claim: dict[str, Any] | None) -> Any:
    args = ["--shape", "llamacpp", "--served-model-name", MODEL, "--pattern", "3"]
    return emulator(*args, *(["--speculation", json.dumps(claim)] if claim is not None else []))


def _probe(emu: Any, doc: Any) -> Any:
    return probe_engine(doc, engine="llamacpp", base_url=emu.base_url, metrics_url="", fetcher=fetcher())


def _states(outcome: Any) -> dict[str, str]:
    return {f["field"]: f["state"] for f in outcome.facts}


def test_slots_that_only_say_they_speculate_conform_with_drafting_shown(emulator: Any) -> None:
    outcome = _probe(_server(emulator, {"speculative.n_max": 8}), _doc())
    assert outcome.state == "conforms", outcome.as_dict()
    assert _states(outcome) == {
        "target.model": "verified",
        "speculation.method": "speculates",
        "speculation.num_speculative_tokens": "verified",
        "speculation.params.prompt_lookup_max": "not_reported",
    }
    # The emulator drafts 8 per step and sends steps of 3, 3 and 2 tokens: 2 + 2 + 1 accepted.
    completion = outcome.evidence["probe_completion"]["fields"]
    assert completion["timings.draft_n"] == 24 and completion["timings.draft_n_accepted"] == 5
    assert outcome.coverage == (
        "2 of 4 fields verified; llama.cpp b11434 says it is speculating (/slots: speculative), "
        "not which method; llama.cpp b11434 does not report speculation.params.prompt_lookup_max; "
        f"seen: 24 tokens drafted, 5 accepted, in a probe completion of {PROBE_TOKENS} tokens"
    )


def test_slots_that_name_the_type_verify_the_method(emulator: Any) -> None:
    claim = {"speculative.types": "none,ngram-simple", "speculative.n_max": 8}
    outcome = _probe(_server(emulator, claim), _doc())
    assert outcome.state == "conforms", outcome.as_dict()
    assert _states(outcome)["speculation.method"] == "verified"
    assert outcome.coverage.startswith("3 of 4 fields verified")


def test_a_server_without_speculation_is_drifted_on_the_method(emulator: Any) -> None:
    outcome = _probe(_server(emulator, None), _doc())
    assert outcome.state == "drifted"
    assert outcome.differences == [
        {"path": "speculation.method", "contract": "ngram-simple", "engine": "none"}
    ]
    assert outcome.evidence["probe_completion"]["fields"]["timings.draft_n"] == 0  # nothing drafted
    assert outcome.coverage.endswith(f"seen: nothing drafted in a probe completion of {PROBE_TOKENS} tokens")


def test_a_speculating_server_for_a_contract_without_speculation_is_drifted(emulator: Any) -> None:
    outcome = _probe(_server(emulator, {"speculative.n_max": 8}), _doc("none"))
    assert outcome.state == "drifted"
    assert outcome.differences == [
        {"path": "speculation.method", "contract": "none", "engine": "speculative (/slots)"}
    ]


def test_the_probe_completion_keeps_facts_not_the_text(emulator: Any) -> None:
    outcome = _probe(_server(emulator, {"speculative.n_max": 8}), _doc())
    read = outcome.evidence["probe_completion"]
    assert read["url"].endswith("/completion") and read["status"] == 200
    assert set(read["fields"]) == {
        "id_slot", "timings.predicted_n", "timings.draft_n", "timings.draft_n_accepted"
    }  # fmt: skip
    assert "content" not in json.dumps(read)
