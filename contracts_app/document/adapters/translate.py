"""One contract, several engines (issue 23 point 6): a contract written for one engine,
rendered for another. The other engine's rules (its newest release: the contract's
`engine_version` names a release of its own engine) are checked; a setting the other engine
cannot hold is dropped and said in a note, each one (a lossy mapping); what cannot be
dropped without changing the route's method, assets or limits refuses the render, naming
the field, as before."""

from __future__ import annotations

from typing import Any

from .. import rules
from ..engines import ENGINE_NAMES, release_view
from ..errors import ContractError
from ..schema import ContractDocument

# Settings a translation may leave out: tuning of the method (a lookup window, a token
# schedule, a tree shape, a verifier) rather than the method, its assets or the route's limits.
DROPPABLE: frozenset[str] = frozenset(
    {
        "speculation.params.prompt_lookup_min",
        "speculation.params.prompt_lookup_max",
        "speculation.params.token_schedule",
        "speculation.params.parallel_drafting",
        "speculation.params.min_speculative_tokens",
        "speculation.params.eagle_topk",
        "speculation.params.num_draft_tokens",
        "speculation.params.ngram_variant",
        "speculation.params.fallback_types",  # llama.cpp's stacked --spec-type list
        "speculation.params.synthetic_acceptance_length",
        "speculation.verifier",
        "compatibility.batching.speculation_off_above_batch_size",
    }
)
_ROUNDS = len(DROPPABLE) + 1  # each round drops at least one field


def translate(doc: ContractDocument, engine: str) -> tuple[ContractDocument, list[str]]:
    """`doc` moved to `engine` (its newest release), and a note per lossy mapping."""
    source = ENGINE_NAMES[doc.target.engine]
    view = release_view(engine, None)
    data: dict[str, Any] = doc.model_dump(mode="json", exclude_none=True)
    data["target"]["engine"] = engine
    data["target"].pop("engine_version", None)
    written = f"{source} {doc.target.engine_version}" if doc.target.engine_version else source
    notes = [f"translated from a contract written for {written}: the rules of {view.label} hold"]
    for _ in range(_ROUNDS):
        current = ContractDocument.model_validate(data)
        problems = rules.errors(current)
        if not problems:
            return current, notes
        if any(e.path not in DROPPABLE for e in problems):
            raise ContractError(f"The contract cannot be rendered for {ENGINE_NAMES[engine]}.", problems)
        for problem in problems:
            value = _pop(data, problem.path)
            if value is not None:
                notes.append(f"lossy: {problem.message}: dropped {problem.path} ({_shown(value)})")
        if data["speculation"].get("verifier") is None:
            data["speculation"].get("params", {}).pop("synthetic_acceptance_length", None)
        if not data["speculation"].get("params"):
            data["speculation"].pop("params", None)
    raise ContractError(  # pragma: no cover - every round drops a field
        f"The contract cannot be rendered for {ENGINE_NAMES[engine]}.", rules.errors(current)
    )


def _pop(data: dict[str, Any], path: str) -> Any:
    *parents, leaf = path.split(".")
    node: Any = data
    for key in parents:
        node = node.get(key) if isinstance(node, dict) else None
    return node.pop(leaf, None) if isinstance(node, dict) else None


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return f"{len(value)} steps"
    return str(value).lower() if isinstance(value, bool) else str(value)
