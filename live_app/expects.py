"""What an endpoint should serve, as written in its `expects`: `active` (the route's
active version, whatever it is when probed) or `release:<id>` (that release's candidate).

The one place the grammar is parsed and printed; pure Python, so the CLI-facing words,
the services and the pages agree on it."""

from __future__ import annotations

import re
from dataclasses import dataclass

_GRAMMAR = re.compile(r"^(?:active|release:([1-9][0-9]{0,17}))$")


@dataclass(frozen=True)
class Expects:
    release_id: int | None = None  # None: the route's active version

    @classmethod
    def parse(cls, text: object) -> Expects | None:
        """The value `text` writes, or None when it isn't `active` or `release:<id>`."""
        match = _GRAMMAR.match(text) if isinstance(text, str) else None
        if match is None:
            return None
        return cls(int(match.group(1))) if match.group(1) else cls()

    @classmethod
    def of_release(cls, release_id: int) -> Expects:
        return cls(int(release_id))

    @property
    def is_active(self) -> bool:
        return self.release_id is None

    def __str__(self) -> str:
        return "active" if self.release_id is None else f"release:{self.release_id}"


ACTIVE = Expects()
