"""ETags and If-Match for every resource a pipeline updates: one way to make them, one way
to read the header, one way to refuse a stale write (412).

How a resource uses it (routes do: contracts_app/models/routes.py, services/routes.py):
- the model has an `etag` property: a version counter (`"release-7-v3"`, releases) or
  `content_etag(kind, *fields)` over the fields its representation shows (routes);
- GET and every write answer with `headers={"ETag": obj.etag}`;
- the write view passes `if_match=if_match_tags(request)` to its service, which locks the
  row (`select_for_update`) and calls `check_if_match(if_match, locked.etag, what)` before
  writing: the comparison is made on the row as locked, so two writers with one ETag can't
  both pass.
Without If-Match (or with `*`) a write is unconditional, as HTTP has it."""

from __future__ import annotations

import hashlib

from drf_spectacular.utils import OpenApiParameter

from kernel.errors import PreconditionFailed

IF_MATCH_PARAMETER = OpenApiParameter(
    "If-Match",
    str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="The ETag from your last read; the write is refused with 412 if the resource changed since.",
)


def content_etag(kind: str, *fields: object) -> str:
    """A strong ETag from the fields a representation is made of (changes when any does)."""
    digest = hashlib.sha256("\x1f".join(str(f) for f in fields).encode()).hexdigest()[:24]
    return f'"{kind}-{digest}"'


def if_match_tags(request: object) -> list[str] | None:
    """The strong entity tags an If-Match header lists, or None when there is no header or
    it is `*` (any current representation matches). A weak tag (`W/"…"`) is left out: If-Match
    uses the strong comparison (RFC 9110 §13.1.1), so a weak tag never matches, and a header of
    weak tags only is a 412."""
    headers = getattr(request, "headers", {})
    header = str(headers.get("If-Match", "")).strip()
    if not header or header == "*":
        return None
    tags = (tag.strip() for tag in header.split(","))
    return [tag for tag in tags if tag and not tag.startswith("W/")]


def check_if_match(if_match: list[str] | None, current: str, what: str) -> None:
    """412 when the client's tags name no longer the current one."""
    if if_match is not None and current not in if_match:
        raise PreconditionFailed(
            f"{what} changed since you read it (ETag now {current}); read it again and retry."
        )
