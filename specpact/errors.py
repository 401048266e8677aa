"""The one domain error type. Services raise it; one API handler and one page helper turn
it into a response (problem+json with field errors on the API)."""

from __future__ import annotations

from dataclasses import dataclass, field


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


class NotFound(DomainError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail=detail, status=404, code="not_found")


class Conflict(DomainError):
    def __init__(self, detail: str, code: str = "conflict") -> None:
        super().__init__(detail=detail, status=409, code=code)


class PreconditionFailed(DomainError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail=detail, status=412, code="precondition_failed")


class Forbidden(DomainError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail=detail, status=403, code="forbidden")
