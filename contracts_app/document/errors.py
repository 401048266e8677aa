"""The format's own error type, `ContractError`: an invalid contract document. It is a
kernel `DomainError` (kernel/errors.py, pure Python, importing no app), so one API handler
turns every one of them into problem+json; the field-error helpers are the kernel's too and
are re-exported here for the format's modules."""

from __future__ import annotations

from kernel.errors import DomainError, FieldError, error_path, field_errors

__all__ = ["ContractError", "DomainError", "FieldError", "error_path", "field_errors"]


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
