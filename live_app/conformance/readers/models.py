"""The model an engine says it serves, held against the contract's `target.model`."""

from __future__ import annotations

from typing import Any

from contracts_app.document import ContractDocument
from live_app.conformance.fetch import Fetched
from live_app.conformance.readers.reading import Reading


def models_of(data: Any) -> list[str]:
    """The names a model list gives its first model: vLLM's ModelCard `root` is the model
    path and `id` the served name (vllm/entrypoints/openai/serving_models.py,
    show_available_models); other engines fill `id`."""
    cards = data.get("data") if isinstance(data, dict) else None
    if isinstance(cards, list) and cards and isinstance(cards[0], dict):
        return [str(cards[0][k]) for k in ("root", "id") if cards[0].get(k) is not None]
    return []


def models_seen(models: Fetched) -> list[str]:
    names = models_of(models.data)
    for key, name in zip(("data[0].root", "data[0].id"), [*names, None, None], strict=False):
        models.saw(key, name)
    return names


def same_model(contract: str, *reported: str) -> bool:
    """A deployment often loads the contract's model from a local copy: the same name, or
    a path ending in the same last component, is the same model."""
    tail = contract.rstrip("/").rsplit("/", 1)[-1]
    return any(r == contract or r.rstrip("/").rsplit("/", 1)[-1] == tail for r in reported)


def compare_model(r: Reading, doc: ContractDocument, *reported: str) -> None:
    if reported:
        r.compare(
            "target.model",
            doc.target.model,
            doc.target.model if same_model(doc.target.model, *reported) else reported[0],
        )
