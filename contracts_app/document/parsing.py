"""Bytes or text → a plain dict, refusing what would make a contract ambiguous: invalid
UTF-8, oversized input, duplicate keys, YAML aliases, non-JSON values."""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re
from typing import Any, Literal

import yaml

from .errors import ContractError, FieldError

MAX_DOCUMENT_BYTES = 256 * 1024

Format = Literal["yaml", "json"]


def _fail(message: str) -> ContractError:
    return ContractError("The contract document could not be parsed.", [FieldError("", message)])


def _decode(raw: bytes | str) -> str:
    if isinstance(raw, str):
        size = len(raw.encode("utf-8", errors="surrogatepass"))
        text = raw
    else:
        size = len(raw)
        text = ""
    if size > MAX_DOCUMENT_BYTES:
        raise _fail(f"the document is {size} bytes; the limit is {MAX_DOCUMENT_BYTES} bytes")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(f"the document is not valid UTF-8: bad byte at byte offset {exc.start}") from exc
    return text.removeprefix("\ufeff")


# --- YAML -------------------------------------------------------------------------------


class _ContractLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys and aliases, and keeps dates as strings.

    Duplicate keys: PyYAML silently keeps the last one, so a reviewer could read one value
    while the engine gets another. Aliases: a small file can expand exponentially once
    walked (and contracts do not need them). Dates: JSON has no date type."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key (a list as key): let the constructor complain
                duplicate = False
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"duplicate key {key!r} (first at line {seen[key].start_mark.line + 1})",
                    key_node.start_mark,
                )
            if not isinstance(key, list | dict):
                seen[key] = key_node
        return super().construct_mapping(node, deep=deep)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"YAML aliases (*{event.anchor}) are not allowed in contracts", event.start_mark
            )
        return super().compose_node(parent, index)


# Scalars as JSON sees them: `2025-01-01` stays a string (no timestamp type), and only
# true/false are booleans (YAML 1.1 also reads yes/no/on/off, a trap in lane lists).
_DROPPED = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool"}
_ContractLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _DROPPED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_ContractLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def _yaml_message(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    text = f"{context}: {problem}" if context and "duplicate key" not in problem else problem
    return f"invalid YAML at {where}{text}" if where else f"invalid YAML: {text}"


def _load_yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_ContractLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise _fail(_yaml_message(exc)) from exc
    except RecursionError as exc:
        raise _fail("invalid YAML: nested too deeply") from exc


# --- JSON -------------------------------------------------------------------------------


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


class _DuplicateKey(ValueError):
    def __init__(self, key: str, pos: int) -> None:
        super().__init__(key)
        self.key = key
        self.pos = pos


class _ContractDecoder(json.JSONDecoder):
    """A decoder whose object parser knows where each object starts, so that a duplicate key
    can be reported with a line and column (object_pairs_hook alone has no position)."""

    def __init__(self) -> None:
        super().__init__(parse_constant=self._refuse_constant)
        self.parse_object = self._parse_object
        # The C scanner ignores parse_object; the Python one calls it.
        self.scan_once = json.scanner.py_make_scanner(self)  # type: ignore[attr-defined]  # untyped in typeshed

    @staticmethod
    def _refuse_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    def _parse_object(self, s_and_end: tuple[str, int], *args: Any) -> tuple[dict[str, Any], int]:
        text, start = s_and_end
        strict, scan_once, _object_hook, _pairs_hook, memo = args
        pairs, end = json.decoder.JSONObject(s_and_end, strict, scan_once, None, list, memo)  # type: ignore[attr-defined]
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                # Point at the second spelling of the key inside this object when we can
                # find it, else at the object's opening brace.
                spelled = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:")
                found = [m.start() for m in spelled.finditer(text, start, end)]
                raise _DuplicateKey(key, found[1] if len(found) > 1 else start)
            result[key] = value
        return result, end


def _load_json(text: str) -> Any:
    try:
        return _ContractDecoder().decode(text)
    except _DuplicateKey as exc:
        line, col = _line_col(text, exc.pos)
        raise _fail(f"invalid JSON at line {line}, column {col}: duplicate key {exc.key!r}") from exc
    except json.JSONDecodeError as exc:
        raise _fail(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    except ValueError as exc:
        raise _fail(f"invalid JSON: {exc}") from exc
    except RecursionError as exc:
        raise _fail("invalid JSON: nested too deeply") from exc


def parse_document(raw: bytes | str, fmt: Format) -> dict[str, Any]:
    """Parse a contract written as YAML or JSON into a dict (not yet validated)."""
    if fmt not in ("yaml", "json"):
        raise _fail(f"unknown format {fmt!r}; use 'yaml' or 'json'")
    text = _decode(raw)
    if not text.strip():
        raise _fail("the document is empty")
    data = _load_yaml(text) if fmt == "yaml" else _load_json(text)
    if data is None:  # YAML with only comments
        raise _fail("the document is empty")
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
        raise _fail(f"the top level of a contract must be a mapping of fields, not {kind}")
    return data


def guess_format(name: str, raw: bytes | str) -> Format:
    """By extension, then by content: a document starting with '{' is JSON."""
    lowered = name.lower()
    if lowered.endswith(".json"):
        return "json"
    if lowered.endswith((".yaml", ".yml")):
        return "yaml"
    head = raw[:1024].lstrip() if isinstance(raw, str) else raw[:1024].lstrip().decode("utf-8", "replace")
    return "json" if head.removeprefix("\ufeff").startswith("{") else "yaml"
