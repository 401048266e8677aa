"""Reading an upload: strict UTF-8, then JSON Lines (or, for ShareGPT, one JSON array),
every problem with the line (or array entry) it is on, all of them at once."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from worker.workloads.records import (
    LineError,
    Record,
    WorkloadError,
    parse_object,
    record_problems,
    structure_problems,
)

Problem = tuple[int, str, str]


def decode(raw: bytes, source: str) -> str:
    """The upload as text; not UTF-8 is an error naming the line and byte offset."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise LineError(source, [(line, "", f"not UTF-8 (byte {exc.start}: {exc.reason})")]) from None
    return text.removeprefix("\ufeff")


def jsonl(text: str, problems: list[Problem]) -> list[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line; the unreadable ones go to
    `problems`, so that they are reported with every other bad line."""
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            out.append((number, parse_object(raw)))
        except ValueError as exc:
            problems.append((number, "", f"not valid JSON ({getattr(exc, 'msg', exc)})"))
    return out


def json_array_or_lines(text: str, source: str, problems: list[Problem]) -> tuple[str, list[tuple[int, Any]]]:
    """A JSON array (numbered by entry) or JSON Lines (numbered by line)."""
    if not text.lstrip().startswith("["):
        return "line", jsonl(text, problems)
    try:
        data = parse_object(text)
    except ValueError as exc:
        raise LineError(
            source, [(getattr(exc, "lineno", 1), "", f"not valid JSON ({getattr(exc, 'msg', exc)})")]
        ) from None
    if not isinstance(data, list):
        raise WorkloadError(f"{source}: expected a JSON array")
    return "entry", list(enumerate(data, start=1))


@dataclass
class Imported:
    """What an importer made of an upload: SpecPact records, each with the line (or entry)
    it came from, and what was noticed on the way."""

    records: list[Record]
    numbers: list[int]
    unit: str = "line"
    warnings: list[Problem] = field(default_factory=list)


class Builder:
    """Collects records (as dicts) with their source numbers, validates them as SpecPact
    records, and raises every problem at once."""

    def __init__(self, source: str, unit: str = "line") -> None:
        self.source, self.unit = source, unit
        self.items: list[tuple[int, dict[str, Any]]] = []
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def add(self, number: int, record: dict[str, Any]) -> None:
        self.items.append((number, {k: v for k, v in record.items() if v is not None}))

    def problem(self, number: int, path: str, message: str) -> None:
        self.problems.append((number, path, message))

    def warn(self, number: int, message: str) -> None:
        self.warnings.append((number, "", message))

    def each(self, items: Iterable[tuple[int, Any]], convert: Callable[[int, Any], None]) -> None:
        for number, obj in items:
            if not isinstance(obj, dict):
                self.problem(number, "", "expected a JSON object")
                continue
            try:
                convert(number, obj)
            except ValueError as exc:
                self.problem(number, "", str(exc))

    def finish(self) -> Imported:
        validated: list[tuple[int, Record]] = []
        for number, data in self.items:
            record, bad = record_problems(number, data)
            self.problems += bad
            if record is not None:
                validated.append((number, record))
        self.problems += structure_problems(validated)
        if self.problems:
            raise LineError(self.source, sorted(set(self.problems)), self.unit)
        if not validated:
            raise WorkloadError(f"{self.source}: no prompts")
        return Imported(
            records=[r for _, r in validated],
            numbers=[n for n, _ in validated],
            unit=self.unit,
            warnings=sorted(self.warnings),
        )


ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "gpt": "assistant",
    "chatgpt": "assistant",
    "bard": "assistant",
    "bing": "assistant",
    "model": "assistant",
}


def text_of(content: Any, where: str) -> str:
    """A message's text: a string, or OpenAI's content parts of type text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if (
                not isinstance(part, dict)
                or part.get("type") != "text"
                or not isinstance(part.get("text"), str)
            ):
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise ValueError(f"{where}: only text content can be replayed (found a {kind!r} part)")
            texts.append(part["text"])
        return "".join(texts)
    raise ValueError(f"{where}: content must be a string or a list of text parts")


def role_of(value: Any, where: str) -> str:
    role = ROLES.get(str(value).lower()) if isinstance(value, str) else None
    if role is None:
        raise ValueError(f"{where}: role {value!r} can't be replayed (system, user or assistant)")
    return role


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
