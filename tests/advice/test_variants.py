"""The documents an advice measures and drafts, and its schedule as the contract's
token_schedule: pure functions of documents, judged by the contract's own validation."""

from __future__ import annotations

from advice_app.variants import (
    baseline_document,
    candidate_document,
    speculation_off_document,
    takes_token_schedule,
    token_schedule,
)
from contracts_app.document import validate_document
from tests.support.factories import example, variant


def test_a_candidate_replaces_the_speculation_and_its_assets_only() -> None:
    active = variant(
        example("contract-summaries-ngram"), **{"compatibility.batching.speculation_off_above_batch_size": 32}
    )
    draft = {"role": "draft", "name": "meta-llama/Llama-3.2-1B-Instruct",
             "tokenizer": {"name": "meta-llama/Llama-3.1-8B-Instruct"}}  # fmt: skip
    doc = candidate_document(
        active, {"method": "draft_model", "tokens": 3, "params": {}, "asset_entries": [draft]}
    )
    assert doc["speculation"] == {"method": "draft_model", "num_speculative_tokens": 3}
    assert doc["assets"] == [draft]
    assert "speculation_off_above_batch_size" not in doc["compatibility"]["batching"]
    assert (doc["target"], doc["measurement"], doc["lanes"]) == (
        active["target"],
        active["measurement"],
        active["lanes"],
    )
    validate_document(doc)
    assert "speculation_off_above_batch_size" in active["compatibility"]["batching"]  # not changed in place


def test_the_baseline_is_speculation_off_and_the_draft_keeps_the_description() -> None:
    active = example("support-chat-eagle3")
    off = baseline_document(active)
    assert off["speculation"] == {"method": "none"} and off["assets"] == []
    validate_document(off)
    assert speculation_off_document(active)["description"] == active["description"]


def test_which_engine_releases_take_a_token_schedule() -> None:
    assert takes_token_schedule("vllm", "0.24.0", "ngram")
    assert not takes_token_schedule(
        "vllm", "0.11.0", "ngram"
    )  # num_speculative_tokens_per_batch_size: 0.24.0
    assert not takes_token_schedule("transformers", "5", "ngram")
    assert not takes_token_schedule("llamacpp", None, "ngram")


def test_a_schedule_by_concurrency_becomes_steps_by_batch_size() -> None:
    steps = [
        {"from_level": 1.0, "tokens": 5},
        {"from_level": 8.0, "tokens": 2},
        {"from_level": 16.0, "tokens": 0},
    ]
    # Each step up to the highest measured level below the next one's start; the last to the largest batch.
    assert token_schedule(steps, [1, 2, 4, 8, 16], 256) == [
        {"up_to_batch_size": 4, "num_speculative_tokens": 5},
        {"up_to_batch_size": 8, "num_speculative_tokens": 2},
        {"up_to_batch_size": 256, "num_speculative_tokens": 0},
    ]
    assert token_schedule([{"from_level": 1.0, "tokens": 4}], [1, 4], 64) == [
        {"up_to_batch_size": 64, "num_speculative_tokens": 4}
    ]


def test_a_drafted_schedule_passes_the_contracts_rules() -> None:
    doc = candidate_document(
        example("contract-summaries-ngram"), {"method": "ngram", "tokens": 5, "params": {}}
    )
    schedule = token_schedule(
        [{"from_level": 1.0, "tokens": 5}, {"from_level": 16.0, "tokens": 0}], [1, 4, 16], 256
    )
    doc["speculation"]["params"] = {"token_schedule": schedule}
    validate_document(doc)
