"""Where in the author's text each error is: a field error's path (`measurement.improve[0].
min_ratio`) → the 1-based line of that key in the YAML (or JSON, which YAML reads too),
found in the composed node tree, so a page can show each error under the line it concerns.

A path the text does not spell (a field that is missing) points at its nearest ancestor
that is there; an error of the whole document (or a text that can't even be composed) is
the document's, line None. A syntax error's own message carries its line (`parsing.py`
words every YAML and JSON error as "… at line N, column M: …")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from .errors import FieldError

_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_AT_LINE = re.compile(r"\bat line (\d+), column \d+")


@dataclass(frozen=True)
class NumberedLine:
    number: int
    text: str
    errors: tuple[FieldError, ...]


@dataclass(frozen=True)
class ErrorListing:
    """The text as numbered lines, each with the errors found on it, and the errors that
    belong to no line (the document's)."""

    lines: tuple[NumberedLine, ...]
    document_errors: tuple[FieldError, ...]


def path_parts(path: str) -> list[str | int]:
    """'measurement.improve[0].min_ratio' → ['measurement', 'improve', 0, 'min_ratio']."""
    return [int(index) if index else key for key, index in _PART.findall(path)]


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None


def _line_of(root: yaml.Node | None, path: str) -> int | None:
    """The 1-based line of the deepest node along `path` (the key's line for a mapping
    entry), None for the document itself or when nothing along it is in the text."""
    node, line = root, None
    for part in path_parts(path):
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            found = next(
                ((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part), None
            )
            if found is None:
                break
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def syntax_error_line(message: str) -> int | None:
    match = _AT_LINE.search(message)
    return int(match.group(1)) if match else None


def error_listing(text: str, errors: Iterable[FieldError]) -> ErrorListing:
    """Number `text`'s lines and place each of `errors` under its line."""
    root = _compose(text)
    rows = text.splitlines() or [""]
    by_line: dict[int, list[FieldError]] = {}
    loose: list[FieldError] = []
    for error in errors:
        line = _line_of(root, error.path) if error.path else syntax_error_line(error.message)
        if line is None or not 1 <= line <= len(rows):
            loose.append(error)
        else:
            by_line.setdefault(line, []).append(error)
    numbered = tuple(NumberedLine(n, row, tuple(by_line.get(n, ()))) for n, row in enumerate(rows, start=1))
    return ErrorListing(numbered, tuple(loose))
