"""Turn semantic changes into rows for the side-by-side diff table (shared by the diff
page and the release page)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_IMPACT_ORDER = {"route-identity": 0, "scope": 1, "policy": 2, "cosmetic": 3}


@dataclass(frozen=True)
class DiffRow:
    path: str
    impact: str
    kind: str
    old: str
    new: str


def _show(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def side_by_side(changes: list[Any]) -> list[DiffRow]:
    """Rows ordered by impact (route-identity first), then path."""
    rows = [DiffRow(c.path, c.impact, c.kind, _show(c.old), _show(c.new)) for c in changes]
    return sorted(rows, key=lambda r: (_IMPACT_ORDER.get(r.impact, 9), r.path))
