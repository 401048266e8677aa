"""The one domain error type. Services raise it; one API handler and one page helper turn
it into a response (problem+json with field errors on the API). Pure Python (no Django):
the contract format (`contracts_app.document`) builds its `ContractError` on it, so a
ContractError is a DomainError like any other.

Imported by the pure contract core, so this module imports only the standard library and
pydantic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

__all__ = [
    "Conflict",
    "DomainError",
    "FieldError",
    "Forbidden",
    "Gone",
    "NotFound",
    "PreconditionFailed",
    "error_path",
    "error_words",
    "field_errors",
]


@dataclass(frozen=True)
class FieldError:
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


@dataclass
class DomainError(Exception):
    """`status` is the HTTP status the API answers with: 400 invalid input, 403 forbidden,
    404 not found, 409 a transition that the current state refuses, 412 a stale If-Match.
    `extensions` are RFC 9457 extension members of the problem (e.g. the `open_release`
    a 409 is about), added beside the standard ones and never replacing them."""

    detail: str
    status: int = 400
    code: str = "invalid"
    errors: list[FieldError] = field(default_factory=list)
    extensions: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.detail)


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


def error_words(exc: DomainError) -> str:
    """The error as one line for a page's message: its detail, then each field's error."""
    details = "; ".join(f"{e.path}: {e.message}" if e.path else e.message for e in exc.errors)
    return f"{exc.detail} {details}".strip()


class NotFound(DomainError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail=detail, status=404, code="not_found")


class Conflict(DomainError):
    def __init__(self, detail: str, code: str = "conflict", extensions: dict[str, Any] | None = None) -> None:
        super().__init__(detail=detail, status=409, code=code, extensions=dict(extensions or {}))


class PreconditionFailed(DomainError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail=detail, status=412, code="precondition_failed")


class Forbidden(DomainError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail=detail, status=403, code="forbidden")


class Gone(DomainError):
    """What was here was removed on purpose and will not come back (410): e.g. raw samples
    dropped by the retention setting. `extensions` say when and by what."""

    def __init__(self, detail: str, code: str = "gone", extensions: dict[str, Any] | None = None) -> None:
        super().__init__(detail=detail, status=410, code=code, extensions=dict(extensions or {}))
