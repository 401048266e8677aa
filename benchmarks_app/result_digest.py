"""The digest of a result: SHA-256 over its canonical JSON, computed in pieces.

The upload's digest (RunResult.digest: a redelivered upload is recognised by it) is taken
over the payload as sent (an upload's own canonical text, `canonical_json`, which is then
also the text stored: it is serialized once); the gate's (`release.gate_completed`'s `judged`, held again by
`verify_audit`) over the payload as stored and read back, which is what it judged and what
a later check reads. PostgreSQL's jsonb can give back a number in another form than sent
(1e20 as an integer), so the two can differ for the same result; each is compared only
with its own kind.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any


def _holds_lists_of_containers(value: dict[str, Any]) -> bool:
    return any(isinstance(v, list) and any(isinstance(x, dict | list) for x in v) for v in value.values())


def _canonical_parts(value: Any) -> Iterator[str]:
    """`json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` in
    pieces: the result and its levels are walked, each request (and anything else without
    a list of containers inside) is encoded whole, so a result of any size is hashed
    without its whole text in memory."""
    if isinstance(value, dict) and _holds_lists_of_containers(value):
        yield "{"
        for n, key in enumerate(sorted(value)):
            yield ("," if n else "") + json.dumps(key, ensure_ascii=False) + ":"
            yield from _canonical_parts(value[key])
        yield "}"
    elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        yield "["
        for n, item in enumerate(value):
            if n:
                yield ","
            yield from _canonical_parts(item)
        yield "]"
    else:
        yield json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def result_digest(payload: Any) -> str:
    """Hex SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8) of a result."""
    hasher = hashlib.sha256()
    for part in _canonical_parts(payload):
        hasher.update(part.encode())
    return hasher.hexdigest()


def canonical_json(payload: Any) -> str:
    """The canonical JSON text of a result in one call of the C encoder: what
    `result_digest` hashes, at a fraction of its cost, for an upload whose text is stored
    as well (it is serialized once: benchmarks_app/services/lifecycle.py)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def text_digest(text: str, step: int = 1 << 20) -> str:
    """`result_digest` of the payload whose `canonical_json` is `text`, encoded a slice at
    a time (no second whole copy of the text)."""
    hasher = hashlib.sha256()
    for start in range(0, len(text), step):
        hasher.update(text[start : start + step].encode())
    return hasher.hexdigest()
