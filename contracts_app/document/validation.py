"""validate_document: a parsed dict → a ContractDocument, or a ContractError listing every
problem: schema errors first (shape and types); engine rules once the shape is right."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from . import rules
from .errors import ContractError, FieldError, field_errors
from .schema import API_VERSION, DIGEST_PATTERN, LANE_PATTERN, ContractDocument


def _message(err: Any) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        return f"unknown field: not part of {API_VERSION} (check the spelling)"
    if kind == "missing":
        return "required field is missing"
    if kind == "string_pattern_mismatch":
        pattern = (err.get("ctx") or {}).get("pattern")
        if pattern == LANE_PATTERN:
            return "a lane name is a lowercase slug: a letter, then letters, digits, _ or - (at most 63)"
        if pattern == DIGEST_PATTERN:
            return "a digest is sha256: followed by 64 lowercase hex digits"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"must be a mapping of fields, got {type(err.get('input')).__name__}"
    text = str(err["msg"])
    if "input" in err and kind.endswith("_type") and not isinstance(err["input"], dict | list):
        shown = repr(err["input"])
        text += f" (got {shown if len(shown) <= 60 else shown[:57] + '...'})"
    return text


def validate_document(data: Any) -> ContractDocument:
    if not isinstance(data, dict):
        raise ContractError(
            "The contract document is invalid.",
            [FieldError("", "the top level of a contract must be a mapping of fields")],
        )
    # Another apiVersion may have another schema: listing v1 errors for it would be noise.
    version = data.get("apiVersion")
    if "apiVersion" in data and version != API_VERSION:
        raise ContractError(
            "The contract document is invalid.",
            [FieldError("apiVersion", f"unknown apiVersion {version!r}; this server reads {API_VERSION}")],
        )
    try:
        doc = ContractDocument.model_validate(data)
    except ValidationError as exc:
        found = field_errors(exc, message=_message)
        raise ContractError("The contract document does not match the specpact/v1 schema.", found) from None
    violations = rules.errors(doc)
    if violations:
        raise ContractError("The contract breaks engine rules.", violations)
    return doc


def validation_warnings(doc: ContractDocument) -> list[FieldError]:
    """Non-fatal findings worth a reviewer's eye (unpinned revisions, CUDA-only methods, …)."""
    return rules.warnings(doc)
