"""The format's own error types. The document core raises them; the project re-uses them
(`kernel.errors` builds its domain errors on `DomainError`), so the core imports nothing
above itself and one API handler turns every one of them into problem+json."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError


@dataclass(frozen=True)
class FieldError:
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


@dataclass
class DomainError(Exception):
    """`status` is the HTTP status the API answers with: 400 invalid input, 403 forbidden,
    404 not found, 409 a transition that the current state refuses, 412 a stale If-Match."""

    detail: str
    status: int = 400
    code: str = "invalid"
    errors: list[FieldError] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.detail)


class ContractError(DomainError):
    """An invalid contract document. `errors` lists every problem found (path + message),
    so an author fixes them in one pass instead of one per upload."""

    def __init__(self, detail: str, errors: list[FieldError] | None = None) -> None:
        super().__init__(detail=detail, status=400, code="invalid_contract", errors=list(errors or []))

    def __reduce__(self) -> tuple[type[ContractError], tuple[str, list[FieldError]]]:
        # Exceptions pickle through their args; keep the field errors across (Celery results).
        return (ContractError, (self.detail, self.errors))

    def __str__(self) -> str:
        if not self.errors:
            return self.detail
        lines = [self.detail] + [f"  {e.path or '(document)'}: {e.message}" for e in self.errors]
        return "\n".join(lines)


def error_path(loc: Sequence[int | str], prefix: str = "") -> str:
    """('measurement', 'improve', 0, 'min_ratio') → 'measurement.improve[0].min_ratio'."""
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part == "[key]":  # pydantic's marker for a failing dict key: the key is the path
            continue
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def field_errors(exc: ValidationError, *, prefix: str = "", message: Any = None) -> list[FieldError]:
    """A pydantic ValidationError as field errors with paths, `prefix` before each path
    (a nested model's own field name). `message(err) -> str` words an error; pydantic's
    own message otherwise."""
    return [
        FieldError(error_path(e["loc"], prefix) or prefix, message(e) if message else str(e["msg"]))
        for e in exc.errors()
    ]
