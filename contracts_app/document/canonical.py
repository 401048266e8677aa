"""The stored form of a contract and its identity.

`normalize` keeps what the author wrote (no injected defaults, no nulls) with types made
exact by the schema (a float field holds 1.0 whether the author wrote 1 or 1.0).
`canonical_json` fills in schema defaults and sorts what has no order: set-like lists (lanes, modes, triggers,
load levels) and lists keyed by identity (assets by role, standards by metric), so
that reordering them keeps the digest while any change of meaning changes it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .schema import ContractDocument

# Lists whose order carries no meaning, by path ("*" = any workload lane).
SET_LISTS: frozenset[str] = frozenset(
    {
        "lanes.allowed",
        "lanes.excluded",
        "compatibility.decoding.modes",
        "rollback.when",
        "measurement.workloads.*.concurrency",
        "measurement.workloads.*.rate",
    }
)
# Lists of mappings identified by one key.
KEYED_LISTS: dict[str, str] = {
    "assets": "role",
    "measurement.improve": "metric",
    "measurement.non_inferiority": "metric",
    "rollback.triggers": "kind",
}


# Fields whose default is None in the schema (so that documents stored before them keep
# their digest) but whose meaning has a default: writing it out is the same contract.
IMPLIED: dict[str, object] = {"verification": "lossless", "speculation.verifier": "standard"}


def drop_implied(data: dict[str, Any]) -> dict[str, Any]:
    """`data` (a dumped document) without the fields in IMPLIED that hold their default."""
    for path, default in IMPLIED.items():
        *parents, leaf = path.split(".")
        node: Any = data
        for key in parents:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get(leaf) == default:
            del node[leaf]
    return data


def list_kind(path: str) -> tuple[str, str | None]:
    """('set', None), ('keyed', key) or ('plain', None) for the list at `path`."""
    generic = path
    if path.startswith("measurement.workloads."):
        parts = path.split(".")
        if len(parts) == 4:
            generic = f"measurement.workloads.*.{parts[3]}"
    if generic in SET_LISTS:
        return "set", None
    if path in KEYED_LISTS:
        return "keyed", KEYED_LISTS[path]
    return "plain", None


def normalize(doc: ContractDocument) -> dict[str, Any]:
    """The JSON form to store: what the author gave, with exact types, without nulls."""
    return doc.model_dump(mode="json", exclude_unset=True, exclude_none=True)


def _canonical(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return {k: _canonical(v, f"{path}.{k}" if path else k) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v, path) for v in value]
        kind, key = list_kind(path)
        if kind == "set":
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        if kind == "keyed" and key is not None:
            return sorted(items, key=lambda v: str(v.get(key)) if isinstance(v, dict) else "")
        return items
    return value


def canonical_json(doc: ContractDocument) -> bytes:
    """Sorted keys, no insignificant whitespace, UTF-8; numbers as the schema typed them."""
    # Defaults are filled in here (not in `normalize`): writing `confidence: 0.95` or
    # leaving the default is the same contract, so it is the same digest.
    data = _canonical(drop_implied(doc.model_dump(mode="json", exclude_none=True)), "")
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def document_digest(doc: ContractDocument) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(doc)).hexdigest()
