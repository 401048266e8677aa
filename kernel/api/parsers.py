"""Request parsers. JSON bodies are held to `kernel.api.safety` (depth, NUL, lone
surrogates, non-finite and out-of-range numbers) before any view sees them: a body that
breaks a rule is a 400 problem naming the path, never a RecursionError or a database error.
JSON is the API's one body format; contract documents (JSON or YAML) are read by their own
endpoints under the same rules (`contracts_app/api/uploads.py`).
A body's `charset` must name a text encoding (`text_charset`): anything else is a 415."""

from __future__ import annotations

import codecs
import json
from typing import Any

from django.conf import settings
from django.utils.http import parse_header_parameters
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from kernel.api.safety import UnsafeInput, check_depth, check_parsed
from kernel.errors import DomainError, FieldError


def unsafe_problem(exc: UnsafeInput) -> DomainError:
    return DomainError(
        "The request body holds a value that cannot be accepted; see errors.",
        code="unsafe_input",
        errors=[FieldError(exc.path, exc.message)],
    )


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# Python codecs that decode bytes to str (so `_is_text_encoding` is true) but are not
# charsets: punycode's decoder is quadratic, the escapes turn text into other text.
_NOT_CHARSETS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined"})


def unsupported_charset(charset: str) -> DomainError:
    return DomainError(
        f"charset {charset!r} is not a text encoding this server reads; send UTF-8.",
        status=415,
        code="unsupported_charset",
        errors=[FieldError("Content-Type", f"charset {charset!r} is not a text encoding")],
    )


def text_charset(charset: str) -> str:
    """The codec name of a Content-Type's charset, if it is a text encoding; else a 415.
    bz2, zlib, base64, hex, rot13 … are codecs too, but bytes-to-bytes (a decompressor: a
    small body inflates to gigabytes) or str-to-str, and the stdlib marks them as not text
    encodings; `bytes.decode` refuses them as well."""
    try:
        info = codecs.lookup(charset)
    except (LookupError, ValueError):  # ValueError: a name with a NUL
        raise unsupported_charset(charset) from None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        raise unsupported_charset(charset)
    return info.name


def content_type_charset(content_type: str) -> str | None:
    """The `charset` parameter of a Content-Type header, as given (None without one)."""
    _, params = parse_header_parameters(content_type or "")
    return params.get("charset")


def load_json(raw: bytes | bytearray, encoding: str = "utf-8") -> Any:
    """Parse a JSON body under the safety rules (DomainError / ParseError when refused)."""
    codec = text_charset(encoding)
    try:
        check_depth(raw)
        text = raw.decode(codec)
        data = json.loads(text, parse_constant=_refuse_constant)
        check_parsed(data)
    except UnsafeInput as exc:
        raise unsafe_problem(exc) from None
    except RecursionError:  # unreachable after check_depth; kept so it can never be a 500
        raise unsafe_problem(UnsafeInput("", "nested too deeply")) from None
    except ValueError as exc:
        raise ParseError(f"JSON parse error - {exc}") from None
    return data


class SafeJSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # Django drops a charset it can't look up (and DRF then falls back to the default):
        # the header's own is judged, so an unknown one is a 415, not a silent UTF-8.
        encoding = content_type_charset(media_type or "") or settings.DEFAULT_CHARSET
        raw = stream.read() if stream is not None else b""
        return load_json(raw, encoding)
