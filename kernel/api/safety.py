"""What every parsed request body is held to before any view sees it, so that no input can
reach a place that answers 500: PostgreSQL refuses NUL in text and `\\u0000` in jsonb,
psycopg cannot encode a lone surrogate, `json.dumps` writes `Infinity` (which jsonb refuses)
for a number like `1e400`, a bigint holds 2⁶³ − 1 at most, and Python's parsers and
encoders recurse (a body nested 10,000 deep is a RecursionError).

`check_depth(raw)` looks at the bytes before parsing (brackets outside strings, counted with
numpy, so a 100 MB result costs milliseconds); `check_parsed(data)` walks the parsed value
once, without recursion, and raises `UnsafeInput` naming the first offending path.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

MAX_DEPTH = 64
INT64_MAX = 2**63 - 1
# A YAML document can share nodes; walked as a tree it could be exponential. JSON bodies
# are bounded by their bytes, so they get no node budget.
YAML_MAX_NODES = 100_000

_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")
# JSON strings (with their escapes), removed before counting brackets.
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_SCALAR_TYPES = frozenset({int, float, bool, type(None)})


class UnsafeInput(ValueError):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or '(body)'}: {message}")
        self.path = path
        self.message = message


def check_depth(raw: bytes | bytearray, limit: int = MAX_DEPTH) -> None:
    """Refuse JSON nested deeper than `limit` without parsing it."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return
    brackets = _NOT_BRACKET.sub(b"", _JSON_STRING.sub(b"", raw))
    if len(brackets) <= limit:
        return
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1).astype(np.int32)
    if int(np.cumsum(steps).max()) > limit:
        raise UnsafeInput("", f"nested more than {limit} levels deep")


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def bad_text(value: str) -> str | None:
    """Why `value` cannot be stored as text, or None."""
    found = _BAD_CHAR.search(value)
    if found is None:
        return None
    return "contains a NUL character" if found.group() == "\x00" else "contains a lone surrogate"


def _scalar_problem(value: Any) -> str | None:
    if isinstance(value, str):
        return bad_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "is not a finite number"
    if isinstance(value, int) and not isinstance(value, bool) and not -INT64_MAX - 1 <= value <= INT64_MAX:
        return "is beyond the 64-bit integer range"
    return None


def _list_is_plain_numbers(items: list[Any]) -> bool:
    """A long list of numbers (a result's per-token samples) checked at C speed."""
    kinds = set(map(type, items))
    if not kinds <= _SCALAR_TYPES:
        return False
    if float in kinds and not all(map(math.isfinite, (x for x in items if type(x) is float))):
        return False
    if int in kinds:
        ints = [x for x in items if type(x) is int]
        return min(ints) >= -INT64_MAX - 1 and max(ints) <= INT64_MAX
    return True


def check_parsed(data: Any, *, max_depth: int = MAX_DEPTH, max_nodes: int | None = None) -> None:
    """Walk `data` (dicts, lists, scalars) and raise UnsafeInput at the first problem.
    Only containers are stacked (and given a path); scalars are checked where they sit."""
    if not isinstance(data, dict | list):
        if (problem := _scalar_problem(data)) is not None:
            raise UnsafeInput("", problem)
        return
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    nodes = 0
    while stack:
        value, path, depth = stack.pop()
        if depth > max_depth:
            raise UnsafeInput(path, f"nested more than {max_depth} levels deep")
        if isinstance(value, list):
            nodes += len(value)
            if max_nodes is None and _list_is_plain_numbers(value):
                continue
            items: Any = enumerate(value)
        else:
            nodes += len(value)
            items = value.items()
        if max_nodes is not None and nodes > max_nodes:
            raise UnsafeInput("", f"has more than {max_nodes} values")
        for key, item in items:
            if isinstance(key, str) and (problem := bad_text(key)) is not None:
                raise UnsafeInput(path, f"has a key that {problem}")
            if isinstance(item, dict | list):
                stack.append((item, _path(path, key), depth + 1))
            elif (problem := _scalar_problem(item)) is not None:
                raise UnsafeInput(_path(path, key), problem)
