"""The OpenAPI schema's problem responses (a drf-spectacular postprocessing hook).

Every error the API answers is RFC 9457 problem+json (kernel/api/problems.py); this
documents them on every operation, so the schema is a contract a client (and schemathesis,
tests/kernel/test_schema_contract.py) can hold the server to: 400 bad input, 401/403
authentication and role or route scope, 404, 405, 406, 413 over a size limit, 415 media
type or encoding, 429 throttled; on writes also 409 (state or uniqueness), 412 (a stale
If-Match) and 422 (an Idempotency-Key reused with another body)."""

from __future__ import annotations

from typing import Any

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "RFC 9457 problem details; `errors` names each bad field by its path.",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
                "required": ["path", "message"],
            },
        },
        "request_id": {"type": "string"},
        # Extension members (RFC 9457 §3.2), present where the problem is about them.
        "open_release": {
            "type": "object",
            "description": "409 release_open: the release of the route that is still open.",
            "properties": {
                "id": {"type": "integer"},
                "url": {"type": "string"},
                "state": {"type": "string"},
            },
            "required": ["id", "url", "state"],
        },
    },
    "required": ["type", "title", "status", "detail", "code"],
}
_ALWAYS = {
    "400": "Invalid input: see `errors` for each field",
    "401": "Not authenticated",
    "403": "The token's role or route scope does not allow this",
    "404": "Not found (or not visible to this token)",
    "405": "Method not allowed",
    "406": "Not acceptable",
    "413": "Request body larger than its limit",
    "415": "Unsupported media type or content encoding",
    "429": "Throttled: retry after `Retry-After` seconds",
}
_WRITES = {
    "409": "Conflict with the resource's state",
    "412": "If-Match names an ETag that is no longer current",
    "422": "Idempotency-Key already used with another request",
}
_WRITE_METHODS = {"post", "put", "patch", "delete"}


def problem_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Problem", PROBLEM_SCHEMA)
    ref = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if method not in _WRITE_METHODS | {"get", "head", "options"}:
                continue
            responses = operation.setdefault("responses", {})
            codes = {**_ALWAYS, **(_WRITES if method in _WRITE_METHODS else {})}
            for code, description in codes.items():
                responses.setdefault(code, {"description": description, "content": ref})
    return result
