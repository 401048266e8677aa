"""A contract document's bytes → a dict, held to every rule a body is held to: the size
limit, depth, the format's own rules (`parse_document`: UTF-8, duplicate keys, aliases),
then what can't be stored (`check_parsed`: NUL, lone surrogates, numbers out of range).
One place for the API's upload (contracts_app/api/uploads.py) and the upload page
(contracts_app/views/authoring.py)."""

from __future__ import annotations

from typing import Any

from contracts_app.document import MAX_DOCUMENT_BYTES, parse_document
from contracts_app.document.parsing import Format
from kernel.api.parsers import unsafe_problem
from kernel.api.problems import too_large_problem
from kernel.api.safety import YAML_MAX_NODES, UnsafeInput, check_depth, check_parsed
from kernel.errors import DomainError


def too_large(size: int) -> DomainError:
    return too_large_problem(MAX_DOCUMENT_BYTES, "MAX_DOCUMENT_BYTES", what=f"The document ({size} bytes)")


def document_from_bytes(raw: bytes, fmt: Format) -> dict[str, Any]:
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise too_large(len(raw))
    try:
        if fmt == "json":
            check_depth(raw)
        document = parse_document(raw, fmt)
        check_parsed(document, max_nodes=YAML_MAX_NODES)
    except UnsafeInput as exc:
        raise unsafe_problem(exc) from None
    return document
