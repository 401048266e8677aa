"""The contract document core: parse, validate, normalize, digest, diff, render, import.

Pure Python: imports nothing from Django, so the offline CLI and the worker side can use it.
"""

from __future__ import annotations

from .adapters import ImportResult, RenderedConfig, import_command, render
from .canonical import canonical_json, document_digest, normalize
from .diff import Change, diff_documents, highest_impact, requires_benchmark
from .engines import ENGINES, METHODS, SUPPORTED_METHODS
from .errors import ContractError
from .metrics import METRICS, lower_is_better
from .parsing import MAX_DOCUMENT_BYTES, guess_format, parse_document
from .rollback import RollbackTarget, parse_rollback_target, rollback_target_of, speculation_off
from .schema import API_VERSION, KNOWN_LANES, SCHEMA_ID, ContractDocument, contract_json_schema
from .validation import validate_document, validation_warnings

__all__ = [
    "API_VERSION",
    "ENGINES",
    "KNOWN_LANES",
    "MAX_DOCUMENT_BYTES",
    "METHODS",
    "METRICS",
    "SCHEMA_ID",
    "SUPPORTED_METHODS",
    "Change",
    "ContractDocument",
    "ContractError",
    "ImportResult",
    "RenderedConfig",
    "RollbackTarget",
    "canonical_json",
    "contract_json_schema",
    "diff_documents",
    "document_digest",
    "guess_format",
    "highest_impact",
    "import_command",
    "lower_is_better",
    "normalize",
    "parse_document",
    "parse_rollback_target",
    "render",
    "requires_benchmark",
    "rollback_target_of",
    "speculation_off",
    "validate_document",
    "validation_warnings",
]
