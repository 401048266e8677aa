"""The one domain error type. Services raise it; one API handler and one page helper turn
it into a response (problem+json with field errors on the API). The type itself is the
contract format's (`contracts_app.document.errors`): the format owns its errors and the
project re-uses them, so a ContractError is a DomainError like any other."""

from __future__ import annotations

from contracts_app.document.errors import DomainError, FieldError, field_errors

__all__ = [
    "Conflict",
    "DomainError",
    "FieldError",
    "Forbidden",
    "NotFound",
    "PreconditionFailed",
    "error_words",
    "field_errors",
]


def error_words(exc: DomainError) -> str:
    """The error as one line for a page's message: its detail, then each field's error."""
    details = "; ".join(f"{e.path}: {e.message}" if e.path else e.message for e in exc.errors)
    return f"{exc.detail} {details}".strip()


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
