"""Request parsers. YAML bodies are accepted for contract uploads
(`Content-Type: application/yaml`); parsing errors become 400 problems with a position."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser


class YAMLParser(BaseParser):
    media_type = "application/yaml"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # Imported here: settings load this module before the apps are ready.
        from contracts_app.document import ContractError, parse_document

        raw = stream.read() if stream is not None else b""
        try:
            return parse_document(raw, "yaml")
        except ContractError as exc:
            raise ParseError(exc.detail) from exc
