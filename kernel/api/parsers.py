"""Request parsers. JSON and YAML bodies are held to `kernel.api.safety` (depth, NUL, lone
surrogates, non-finite and out-of-range numbers) before any view sees them: a body that
breaks a rule is a 400 problem naming the path, never a RecursionError or a database error.
YAML bodies are accepted for contract uploads (`Content-Type: application/yaml`)."""

from __future__ import annotations

import codecs
import json
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from kernel.api.safety import YAML_MAX_NODES, UnsafeInput, check_depth, check_parsed
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


class YAMLParser(BaseParser):
    media_type = "application/yaml"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # Imported here: settings load this module before the apps are ready.
        from contracts_app.document import ContractError, parse_document

        raw = stream.read() if stream is not None else b""
        try:
            data = parse_document(raw, "yaml")
            check_parsed(data, max_nodes=YAML_MAX_NODES)
        except ContractError as exc:
            raise ParseError(exc.detail) from exc
        except UnsafeInput as exc:
            raise unsafe_problem(exc) from None
        except RecursionError:
            raise unsafe_problem(UnsafeInput("", "nested too deeply")) from None
        return data
