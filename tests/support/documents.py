"""For the contract document tests: the shared example contracts (read from the
`shared/` folder beside the repository, as they are), a valid handmade document and
helpers that collect a document's validation errors."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from contracts_app.document import ContractError, parse_document, validate_document
from kernel.errors import FieldError

EXAMPLES_DIR = (Path(__file__).resolve().parents[2] / "../shared/contracts/examples").resolve()


def example_paths() -> list[Path]:
    if not EXAMPLES_DIR.is_dir():
        pytest.fail(f"the shared example contracts are missing: expected them in {EXAMPLES_DIR}")
    paths = sorted(EXAMPLES_DIR.glob("*.yaml"))
    if len(paths) < 5:
        pytest.fail(f"expected the five example contracts in {EXAMPLES_DIR}, found {len(paths)}")
    return paths


def load_example(name: str) -> dict[str, Any]:
    return parse_document((EXAMPLES_DIR / name).read_bytes(), "yaml")


BASE: dict[str, Any] = {
    "apiVersion": "specpact/v1",
    "route": "contract-summaries",
    "description": "Summaries for the review desk.",
    "target": {
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "revision": "0e9e39f249a16976918f6564b8830bc894c89659",
        "engine": "vllm",
        "engine_version": "0.24.0",
    },
    "speculation": {
        "method": "ngram",
        "num_speculative_tokens": 5,
        "params": {"prompt_lookup_min": 2, "prompt_lookup_max": 5},
    },
    "assets": [],
    "compatibility": {
        "tokenizer": {
            "name": "meta-llama/Llama-3.1-8B-Instruct",
            "revision": "0e9e39f249a16976918f6564b8830bc894c89659",
        },
        "decoding": {"modes": ["greedy", "sampling"], "temperature_max": 1.0},
        "batching": {"max_batch_size": 256},
        "max_concurrency": 64,
    },
    "lanes": {"allowed": ["summarization", "extraction"], "excluded": ["agent"]},
    "measurement": {
        "workloads": {
            "summarization": {
                "dataset": "builtin:summarization",
                "concurrency": [1, 4, 16],
                "requests_per_level": 64,
                "max_tokens": 256,
            },
            "extraction": {
                "dataset": "builtin:extraction",
                "concurrency": [1, 4],
                "requests_per_level": 64,
                "max_tokens": 128,
            },
        },
        "improve": [{"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95, "max_concurrency": 4}],
        "non_inferiority": [
            {"metric": "ttft_p95", "max_ratio": 1.1},
            {"metric": "e2e_p95", "max_ratio": 1.0},
        ],
        "output_stability": {"greedy_exact_match_min": 0.99},
        "memory_headroom_min_gib": 4,
    },
    "rollback": {"to": "previous", "when": ["gate_fail", "output_stability_breach"]},
}

DRAFT = {
    "role": "draft",
    "name": "meta-llama/Llama-3.2-1B-Instruct",
    "revision": "9213176726f574b556790deb65791e0c5aa438b6",
    "size_bytes": 2471645608,
    "tokenizer": {
        "name": "meta-llama/Llama-3.1-8B-Instruct",
        "revision": "0e9e39f249a16976918f6564b8830bc894c89659",
    },
}
EAGLE_HEAD = {"role": "eagle_head", "name": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "revision": "6b3a2c1e4f"}


def base() -> dict[str, Any]:
    return copy.deepcopy(BASE)


def with_draft(doc: dict[str, Any] | None = None) -> dict[str, Any]:
    doc = doc or base()
    doc["speculation"] = {"method": "draft_model", "num_speculative_tokens": 4}
    doc["assets"] = [copy.deepcopy(DRAFT)]
    return doc


def errors_of(data: Any) -> list[FieldError]:
    with pytest.raises(ContractError) as info:
        validate_document(data)
    assert info.value.status == 400
    assert info.value.code == "invalid_contract"
    return info.value.errors


def paths_of(data: Any) -> list[str]:
    return [e.path for e in errors_of(data)]


def error_at(data: Any, path: str) -> str:
    """The message at `path` (the test fails, showing all errors, when there is none)."""
    found = errors_of(data)
    messages = [e.message for e in found if e.path == path]
    assert messages, f"no error at {path!r}; errors: {[(e.path, e.message) for e in found]}"
    return messages[0]
