"""The API's YAML parser (`Content-Type: application/yaml`, for contract uploads): the
contract format's own YAML reader, held to the kernel's safety rules (kernel/api/safety.py)
like every JSON body."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from contracts_app.document import ContractError, parse_document
from kernel.api.parsers import unsafe_problem
from kernel.api.safety import YAML_MAX_NODES, UnsafeInput, check_parsed


class YAMLParser(BaseParser):
    media_type = "application/yaml"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
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
