"""One check's outcome, as `manage.py restore_check` prints it (words) and emits it (JSON)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Checked:
    """`summary` says what was looked at, with counts; `problems` name each thing found
    wrong (a row, a table, a migration), empty when the check holds."""

    name: str
    summary: str
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, **asdict(self)}
