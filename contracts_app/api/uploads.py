"""Reading a contract document from a request body ourselves, not through DRF's parsers:
the stored version keeps its source format, and every failure (not UTF-8, malformed,
nested too deep, a NUL or a lone surrogate in a string, a number JSON or the database
can't hold) becomes a 400 problem with a path rather than a generic parse error; a
document over its size limit is a 413 naming the limit."""

from __future__ import annotations

from typing import Any, Literal

from django.core.exceptions import RequestDataTooBig
from rest_framework.request import Request

from contracts_app.document import MAX_DOCUMENT_BYTES
from contracts_app.reading import document_from_bytes, too_large
from kernel.errors import DomainError

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
        raise too_large(declared)
    try:
        raw = request._request.body  # the raw bytes; DRF has not consumed the stream yet
    except RequestDataTooBig:
        raise too_large(declared) from None
    return document_from_bytes(raw, fmt), fmt
