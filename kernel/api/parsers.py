"""Request parsers. JSON and YAML bodies are held to `kernel.api.safety` (depth, NUL, lone
surrogates, non-finite and out-of-range numbers) before any view sees them: a body that
breaks a rule is a 400 problem naming the path, never a RecursionError or a database error.
YAML bodies (contract uploads) are parsed by the contract format's own parser,
`contracts_app/api/parsers.py`, under the same rules."""

from __future__ import annotations

import codecs
import json
from typing import Any

from django.conf import settings
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


def load_json(raw: bytes, encoding: str = "utf-8") -> Any:
    """Parse a JSON body under the safety rules (DomainError / ParseError when refused)."""
    try:
        check_depth(raw)
        text = codecs.decode(raw, encoding)
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
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read() if stream is not None else b""
        return load_json(raw, encoding)
