"""Reading a contract document from a request body ourselves, not through DRF's parsers:
the stored version keeps its source format, and every failure (too large, not UTF-8,
malformed) becomes a 400 problem with a path rather than a generic parse error."""

from __future__ import annotations

from typing import Any, Literal

from django.core.exceptions import RequestDataTooBig
from rest_framework.request import Request

from contracts_app.document import MAX_DOCUMENT_BYTES, ContractError, parse_document
from specpact.errors import DomainError, FieldError

YAML_TYPES = {"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}
JSON_TYPES = {"application/json"}


def read_document(request: Request) -> tuple[dict[str, Any], str]:
    """The request's body as a document dict and its format (`yaml` or `json`)."""
    media_type = (request.content_type or "").split(";")[0].strip().lower()
    fmt: Literal["yaml", "json"]
    if media_type in YAML_TYPES:
        fmt = "yaml"
    elif media_type in JSON_TYPES or media_type == "":
        fmt = "json"
    else:
        raise DomainError(
            f"Unsupported Content-Type {media_type!r}: send application/json or application/yaml.",
            status=415,
            code="unsupported_media_type",
        )
    declared = int(request.META.get("CONTENT_LENGTH") or 0)
    if declared > MAX_DOCUMENT_BYTES:
        raise _too_large(declared)
    try:
        raw = request._request.body  # the raw bytes; DRF has not consumed the stream yet
    except RequestDataTooBig:
        raise _too_large(declared) from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise _too_large(len(raw))
    return parse_document(raw, fmt), fmt


def _too_large(size: int) -> ContractError:
    return ContractError(
        f"The document is {size} bytes; the limit is {MAX_DOCUMENT_BYTES} bytes.",
        errors=[FieldError("", f"document larger than {MAX_DOCUMENT_BYTES} bytes")],
    )
