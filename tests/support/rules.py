"""Helpers of the engine-rule tests: a contract moved to another engine or method, and
the check that a rule refuses one document and accepts its nearest valid neighbour."""

from __future__ import annotations

import copy
from typing import Any

from contracts_app.document import validate_document
from tests.support.documents import error_at

Doc = dict[str, Any]


def on_engine(doc: Doc, engine: str) -> Doc:
    """The contract on another engine: its newest release (engine_version names vLLM's)."""
    doc["target"]["engine"] = engine
    if engine != "vllm":
        doc["target"].pop("engine_version", None)
        doc["compatibility"]["batching"].pop("speculation_off_above_batch_size", None)
    if engine == "transformers":
        doc["compatibility"]["batching"]["max_batch_size"] = 1
        doc["compatibility"]["max_concurrency"] = 1
        for item in doc["measurement"]["improve"]:
            item.pop("max_concurrency", None)
    return doc


def method(
    doc: Doc,
    name: str,
    tokens: int | None = 3,
    params: dict[str, Any] | None = None,
    assets: list[Doc] | None = None,
) -> Doc:
    doc["speculation"] = {"method": name}
    if tokens is not None:
        doc["speculation"]["num_speculative_tokens"] = tokens
    if params is not None:
        doc["speculation"]["params"] = params
    doc["assets"] = copy.deepcopy(assets or [])
    return doc


def assert_valid(doc: Doc) -> None:
    validate_document(doc)


def assert_rule(bad: Doc, good: Doc, path: str, fragment: str) -> None:
    message = error_at(bad, path)
    assert fragment in message, message
    assert_valid(good)
