"""A request body read by its view, in chunks, under a limit of its own (a worker's result
upload): the guard (kernel/api/guard.py) leaves such a body unread, gzip included, so that
it is read once, into one buffer, and never copied whole on the way.

- A declared Content-Length over the limit is a 413 before a byte is read.
- A body that turns out larger while it is read (or, gzipped, inflates past the limit) is
  a 413 as soon as it passes the limit: at most one chunk past it is ever held.
- `Content-Encoding: gzip` is inflated chunk by chunk into the same buffer (the guard's
  rules: broken or truncated gzip is a 400, any other encoding a 415).
"""

from __future__ import annotations

import zlib
from typing import Any

from kernel.api.problems import too_large_problem
from kernel.errors import DomainError

CHUNK = 256 * 1024
_GZIP_WBITS = 16 + zlib.MAX_WBITS


def _bad_gzip(detail: str) -> DomainError:
    return DomainError(detail, status=400, code="bad_encoding", errors=[])


def _declared(meta: dict[str, Any]) -> int:
    try:
        return max(0, int(meta.get("CONTENT_LENGTH") or 0))
    except ValueError:
        raise DomainError("Content-Length is not a number.", status=400, code="bad_content_length") from None


def read_capped(request: Any, limit: int, setting: str) -> bytearray:
    """The whole (inflated) body of a Django request, at most `limit` bytes."""
    encoding = request.META.get("HTTP_CONTENT_ENCODING", "").strip().lower()
    if encoding not in ("", "identity", "gzip"):
        raise DomainError(
            f"Content-Encoding {encoding!r} is not supported; send gzip or an unencoded body.",
            status=415,
            code="unsupported_encoding",
        )
    declared = _declared(request.META)
    gzipped = encoding == "gzip"
    if declared > limit:
        what = "The compressed request body" if gzipped else "The request body"
        raise too_large_problem(limit, setting, what=what)
    out = bytearray()
    inflater = zlib.decompressobj(_GZIP_WBITS) if gzipped else None
    read = 0
    while read < declared and (chunk := request.read(min(CHUNK, declared - read))):
        read += len(chunk)
        if inflater is None:
            out += chunk
        else:
            _inflate_into(out, inflater, chunk, limit, setting)
        if len(out) > limit:
            raise too_large_problem(limit, setting)
    if inflater is not None and declared and (not inflater.eof or inflater.unused_data):
        raise _bad_gzip("The gzip body is truncated or has trailing data.")
    return out


def _inflate_into(out: bytearray, inflater: Any, data: bytes, limit: int, setting: str) -> None:
    """Inflate `data` into `out`, a bounded step at a time (a gzip bomb stops at the limit)."""
    try:
        while True:
            piece = inflater.decompress(data, CHUNK)
            out += piece
            if len(out) > limit:
                raise too_large_problem(limit, setting, what="The decompressed request body")
            data = inflater.unconsumed_tail
            # Input used up is not output done: a full CHUNK may leave more in zlib's window.
            if inflater.eof or not (data or len(piece) == CHUNK):
                break
    except zlib.error as exc:
        raise _bad_gzip(f"The body is not valid gzip: {exc}.") from None
