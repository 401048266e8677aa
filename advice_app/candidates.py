"""What an operator asks an advice run to try, checked against the route's active version:
each candidate a method its engine release runs, with the assets the operator names and a
whole number of tokens, and its variant of the active contract valid by the engine's own
rules. Every problem is a FieldError under `candidates[i]`, all of them at once."""

from __future__ import annotations

import math
from typing import Any

from advice_app.serialize import candidate_from_dict
from advice_app.variants import candidate_document, takes_token_schedule
from contracts_app.document import ContractError, validate_document
from contracts_app.document.engines import METHODS, release_view
from kernel.errors import FieldError

Json = dict[str, Any]
GIB = 2**30
MAX_CANDIDATES = 12
MAX_TOKENS = 128  # the format's own bound on a schedule step's tokens (schema.TokenStep)
_KEYS = {"name", "method", "tokens", "params", "assets", "memory_gib"}


def checked_candidates(raw: Any, active: Json) -> tuple[list[Json], list[FieldError]]:
    """(stored candidate dicts, errors). A dict: {method, tokens, name?, params? (the
    contract's speculation.params), assets? (the contract's asset entries), memory_gib?}."""
    if not isinstance(raw, list) or not raw:
        return [], [FieldError("candidates", "give at least one candidate: {method, tokens}")]
    if len(raw) > MAX_CANDIDATES:
        return [], [FieldError("candidates", f"at most {MAX_CANDIDATES} candidates")]
    target = active.get("target") or {}
    engine, release = str(target.get("engine")), target.get("engine_version")
    view = release_view(engine, release)
    out: list[Json] = []
    errors: list[FieldError] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw):
        path = f"candidates[{i}]"
        found = _one(item, path, view.methods, view.label)
        if isinstance(found, list):
            errors += found
            continue
        found["schedulable"] = takes_token_schedule(engine, release, found["method"])
        if found["name"] in seen:
            errors.append(FieldError(f"{path}.name", f"the same name as candidates[{seen[found['name']]}]"))
            continue
        seen[found["name"]] = i
        try:
            candidate_from_dict(found)
        except ValueError as exc:
            errors.append(FieldError(path, str(exc)))
            continue
        try:
            validate_document(candidate_document(active, found))
        except ContractError as exc:
            errors += [FieldError(f"{path}.{_as_candidate_path(e.path)}", e.message) for e in exc.errors]
            continue
        out.append(found)
    configs = [_config(c) for c in out]
    for j, c in enumerate(configs):
        if c in configs[:j]:
            errors.append(
                FieldError("candidates", f"{out[j]['name']} repeats another candidate's configuration")
            )
    return out, errors


def _one(item: Any, path: str, runs: frozenset[str], label: str) -> Json | list[FieldError]:
    if not isinstance(item, dict):
        return [FieldError(path, "a candidate is an object: {method, tokens}")]
    errors = [FieldError(f"{path}.{k}", "unknown field") for k in sorted(set(item) - _KEYS, key=str)]
    method, tokens = item.get("method"), item.get("tokens")
    if not isinstance(method, str) or method not in METHODS or method == "none":
        errors.append(
            FieldError(
                f"{path}.method",
                f"one of {', '.join(m for m in METHODS if m != 'none')}; "
                "the baseline (speculation off) is always measured",
            )
        )
    elif method not in runs:
        errors.append(
            FieldError(
                f"{path}.method",
                f"{label} does not run {method}; it runs {', '.join(sorted(runs - {'none'}))}",
            )
        )
    if isinstance(tokens, bool) or not isinstance(tokens, int) or not 1 <= tokens <= MAX_TOKENS:
        errors.append(FieldError(f"{path}.tokens", f"a whole number from 1 to {MAX_TOKENS}"))
    name = item.get("name", f"{method}-{tokens}")
    if not isinstance(name, str) or not name.strip() or len(name) > 64:
        errors.append(FieldError(f"{path}.name", "a non-empty name of at most 64 characters"))
    params = item.get("params", {})
    if not isinstance(params, dict):
        errors.append(FieldError(f"{path}.params", "an object: the contract's speculation.params"))
    assets = item.get("assets", [])
    if not isinstance(assets, list) or not all(isinstance(a, dict) for a in assets):
        errors.append(FieldError(f"{path}.assets", "a list of the contract's asset entries {role, name, …}"))
    memory = item.get("memory_gib")
    if memory is not None and (
        isinstance(memory, bool)
        or not isinstance(memory, int | float)
        or not math.isfinite(memory)
        or memory < 0
    ):
        errors.append(FieldError(f"{path}.memory_gib", "a number of GiB >= 0"))
    if errors:
        return errors
    if memory is None and assets and all(isinstance(a.get("size_bytes"), int) for a in assets):
        memory = round(sum(a["size_bytes"] for a in assets) / GIB, 3)  # what the assets occupy on disk
    return {
        "name": name.strip(),
        "method": method,
        "tokens": tokens,
        "assets": len(assets),
        "memory_gib": float(memory) if memory is not None else None,
        "schedulable": False,
        "params": dict(params),
        "asset_entries": list(assets),
    }


def _as_candidate_path(path: str) -> str:
    """A variant document's error path as the candidate's field: speculation.params.x →
    params.x, assets[0].name → assets[0].name, speculation.num_speculative_tokens → tokens."""
    if path == "speculation.num_speculative_tokens":
        return "tokens"
    if path == "speculation.method":
        return "method"
    return path.removeprefix("speculation.") or "document"


def _config(c: Json) -> tuple[str, int, str, str]:
    return (c["method"], c["tokens"], repr(sorted(c["params"].items())), repr(c["asset_entries"]))
