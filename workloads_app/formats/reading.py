"""Reading an upload as a stream: strict UTF-8, then JSON Lines (or, for ShareGPT, one
JSON array, read entry by entry), every problem with the line (or array entry) it is on.

Nothing here holds the upload or its records in memory: lines are read one at a time from
the file, what must be seen across lines goes to the upload's `Scratch` (a SQLite file),
and the problems are kept there too (the first SHOWN reported, all counted). A line is
bounded before it becomes Python objects (records.parse_object: depth, numbers), and the
number of records is capped (`max_records`: WORKLOAD_MAX_RECORDS).
"""

from __future__ import annotations

import codecs
import hashlib
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from worker.workloads.records import (
    MAX_DEPTH,
    JsonLineError,
    LineError,
    Record,
    WorkloadError,
    bounded_decoder,
    default_id,
    json_depth_exceeds,
    out_of_bounds,
    parse_object,
    record_problems,
)
from workloads_app.formats.scratch import Scratch

Problem = tuple[int, str, str]
CHUNK = 64 * 1024


class TooManyRecords(WorkloadError):
    """More records than the upload may have: `number` is the line (or entry) of the first
    one past the cap."""

    def __init__(self, source: str, number: int, unit: str, cap: int) -> None:
        super().__init__(f"{source}: more than {cap} records ({unit} {number} is past the cap)")
        self.number, self.unit, self.cap = number, unit, cap


class UploadTooLarge(WorkloadError):
    """More bytes than the upload may have (`size`: how many were read when it was seen)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"the upload is larger than the limit ({size} bytes read)")
        self.size = size


class Input:
    """The upload's bytes, read in chunks; counts them (`size`), refuses them past `limit`,
    and keeps the first chunk to look at before anything is parsed."""

    def __init__(self, stream: IO[bytes] | bytes, limit: int | None = None) -> None:
        self.stream: IO[bytes] = io.BytesIO(stream) if isinstance(stream, bytes) else stream
        self.size, self.limit = 0, limit
        self._first: bytes | None = None

    def _count(self, chunk: bytes) -> bytes:
        self.size += len(chunk)
        if self.limit is not None and self.size > self.limit:
            raise UploadTooLarge(self.size)
        return chunk

    def starts_with(self, prefix: bytes) -> bool:
        """Whether the upload's first non-blank byte (after a BOM) begins `prefix`."""
        if self._first is None:
            self._first = self.stream.read(CHUNK)
        return self._first.removeprefix(codecs.BOM_UTF8).lstrip().startswith(prefix)

    def chunks(self) -> Iterator[bytes]:
        if self._first is not None:
            first, self._first = self._first, b""
            yield self._count(first)
        while chunk := self.stream.read(CHUNK):
            yield self._count(chunk)

    def byte_lines(self) -> Iterator[bytes]:
        """The upload split after each b"\\n" (a line longer than a chunk is joined once)."""
        pending: list[bytes] = []
        for chunk in self.chunks():
            start = 0
            while (end := chunk.find(b"\n", start)) != -1:
                pending.append(chunk[start : end + 1])
                yield b"".join(pending)
                pending, start = [], end + 1
            if start < len(chunk):
                pending.append(chunk[start:])
        if pending:
            yield b"".join(pending)


def _not_utf8(source: str, line: int, offset: int, exc: UnicodeDecodeError) -> LineError:
    return LineError(source, [(line, "", f"not UTF-8 (byte {offset}: {exc.reason})")])


def text_lines(data: Input, source: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of every line, numbered as str.splitlines numbers the
    whole text; not UTF-8 is an error naming the line and the byte offset."""
    number = offset = 0
    for raw in data.byte_lines():
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _not_utf8(source, number + 1, offset + exc.start, exc) from None
        if offset == 0:
            text = text.removeprefix("\ufeff")
        offset += len(raw)
        for line in text.splitlines():
            number += 1
            yield number, line


def _line_problem(exc: ValueError) -> tuple[str, str]:
    if isinstance(exc, JsonLineError):  # JSON, out of bounds: the field where there is one
        return exc.path, exc.msg
    return "", f"not valid JSON ({getattr(exc, 'msg', exc)})"


def jsonl(data: Input, source: str, scratch: Scratch) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line; the unreadable ones go to the
    scratch's problems, so that they are reported with every other bad line."""
    for number, raw in text_lines(data, source):
        if not raw.strip():
            continue
        try:
            yield number, parse_object(raw)
        except ValueError as exc:
            path, message = _line_problem(exc)
            scratch.problem(number, path, message)


def _array_entries(data: Input, source: str, scratch: Scratch) -> Iterator[tuple[int, Any]]:
    """The entries of one JSON array, decoded one at a time from a buffer that holds the
    entry being read (and what came with its chunk), numbered from 1."""
    decoder, out_of_range = bounded_decoder()
    text = codecs.getincrementaldecoder("utf-8")("strict")
    chunks = data.chunks()
    buf, pos, lines_before, consumed = "", 0, 0, 0
    exhausted = False

    def more() -> bool:
        nonlocal buf, pos, lines_before, exhausted, consumed
        chunk = next(chunks, None)
        try:
            piece = text.decode(chunk or b"", final=chunk is None)
        except UnicodeDecodeError as exc:
            raise _not_utf8(source, lines_before + buf.count("\n") + 1, consumed + exc.start, exc) from None
        consumed += len(chunk or b"")
        lines_before += buf.count("\n", 0, pos)
        buf, pos = buf[pos:] + piece, 0
        if consumed == len(chunk or b"") and buf.startswith("\ufeff"):
            buf = buf[1:]
        exhausted = chunk is None
        return not exhausted

    def skip_blank() -> str:
        nonlocal pos
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n":
                pos += 1
            if pos < len(buf) or not more():
                return buf[pos] if pos < len(buf) else ""

    def syntax(message: str, at: int) -> LineError:
        return LineError(
            source, [(lines_before + buf.count("\n", 0, at) + 1, "", f"not valid JSON ({message})")]
        )

    if skip_blank() != "[":
        raise WorkloadError(f"{source}: expected a JSON array")
    pos += 1
    number = 0
    if skip_blank() == "]":
        pos += 1
    else:
        while True:
            number += 1
            skip_blank()
            while True:
                out_of_range[0] = False
                try:
                    value, end = decoder.raw_decode(buf, pos)
                    break
                except RecursionError:
                    raise LineError(
                        source, [(number, "", f"nested more than {MAX_DEPTH} deep")], "entry"
                    ) from None
                except JsonLineError as exc:
                    raise LineError(source, [(number, "", exc.msg)], "entry") from None
                except ValueError as exc:
                    # Cut off by the buffer's end: read on (doubling the buffer) and try again.
                    target = 2 * max(len(buf) - pos, CHUNK)
                    grew = False
                    while not exhausted and len(buf) - pos < target:
                        grew = more() or grew
                    if not grew and exhausted:
                        raise syntax(getattr(exc, "msg", str(exc)), getattr(exc, "pos", pos)) from None
            entry = buf[pos:end]
            pos = end
            if json_depth_exceeds(entry):
                scratch.problem(number, "", f"nested more than {MAX_DEPTH} deep")
            elif out_of_range[0] and (found := out_of_bounds(value)) is not None:
                scratch.problem(number, found[0], found[1])
            else:
                yield number, value
            after = skip_blank()
            if after == ",":
                pos += 1
                continue
            if after == "]":
                pos += 1
                break
            raise syntax("expected ',' or ']' between entries", pos)
    if skip_blank():
        raise syntax("extra data after the array", pos)


def json_array_or_lines(data: Input, source: str, scratch: Scratch) -> tuple[str, Iterator[tuple[int, Any]]]:
    """A JSON array (numbered by entry) or JSON Lines (numbered by line)."""
    if data.starts_with(b"["):
        return "entry", _array_entries(data, source, scratch)
    return "line", jsonl(data, source, scratch)


@dataclass
class Imported:
    """What an importer made of an upload: SpecPact records in canonical form, in the
    scratch (each with the line, or entry, it came from), and what was noticed on the way."""

    scratch: Scratch
    requests: int
    unit: str = "line"
    warnings: list[Problem] = field(default_factory=list)
    warning_count: int = 0
    upload_bytes: int = 0

    def iter_records(self, *, by_conversation: bool = False) -> Iterator[tuple[int, Record]]:
        for number, line in self.scratch.canonical_lines(by_conversation=by_conversation):
            yield number, Record.model_validate_json(line)

    @property
    def records(self) -> list[Record]:
        """Every record, in a list: for tests and small workloads (the service streams)."""
        return [r for _, r in self.iter_records()]

    @property
    def numbers(self) -> list[int]:
        return [n for n, _ in self.scratch.canonical_lines()]


def imported_records(records: Iterable[Record], scratch: Scratch) -> Imported:
    """Records already validated (a built-in prompt set, a test's), as an import."""
    for number, r in enumerate(records, start=1):
        conv, turn = (r.conversation, r.turn or 0) if r.conversation is not None else (None, None)
        scratch.add_record(number, default_id(number, r), conv, turn, r.canonical_line())
    return Imported(scratch=scratch, requests=scratch.record_count())


Transform = Callable[[Record], Record]


class Builder:
    """Collects records (as dicts) with their source numbers, validates them as SpecPact
    records (transformed, e.g. redacted, then in canonical form) into the scratch, and
    raises every problem at once (the first SHOWN, with the count of lines that have one).

    `add` validates a record as it comes; `defer` keeps it as an item in the scratch, for
    an importer that changes or reorders records after it has read on (OpenAI threads,
    Mooncake's timestamp order): those are validated by `finish`."""

    def __init__(
        self,
        source: str,
        scratch: Scratch,
        unit: str = "line",
        max_records: int | None = None,
        transform: Transform | None = None,
    ) -> None:
        self.source, self.scratch, self.unit, self.max_records = source, scratch, unit, max_records
        self.transform = transform
        self.added = 0

    def _count(self, number: int) -> None:
        self.added += 1
        if self.max_records is not None and self.added > self.max_records:
            raise TooManyRecords(self.source, number, self.unit, self.max_records)

    def add(self, number: int, record: dict[str, Any]) -> None:
        self._count(number)
        self._validated(number, {k: v for k, v in record.items() if v is not None})

    def defer(self, number: int, record: dict[str, Any], sort: float | None = None) -> int:
        """Keep the record as an item (validated by `finish`, in `sort` order); its position."""
        self._count(number)
        return self.scratch.add_item(number, {k: v for k, v in record.items() if v is not None}, sort)

    def _validated(self, number: int, data: dict[str, Any]) -> None:
        record, bad = record_problems(number, data)
        for problem in bad:
            self.scratch.problem(*problem)
        if record is None:
            return
        if self.transform is not None:
            record = self.transform(record)
        conv, turn = (
            (record.conversation, record.turn or 0) if record.conversation is not None else (None, None)
        )
        self.scratch.add_record(number, default_id(number, record), conv, turn, record.canonical_line())

    def problem(self, number: int, path: str, message: str) -> None:
        self.scratch.problem(number, path, message)

    def warn(self, number: int, message: str) -> None:
        self.scratch.problem(number, "", message, warning=True)

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
        scratch = self.scratch
        for number, data in scratch.items():
            self._validated(number, data)
        structure_problems(scratch)
        problems, lines = scratch.problems()
        if problems:
            raise LineError(self.source, problems, self.unit, lines=lines)
        requests = scratch.record_count()
        if not requests:
            raise WorkloadError(f"{self.source}: no prompts")
        warnings, warning_count = scratch.problems(warning=True)
        return Imported(
            scratch=scratch, requests=requests, unit=self.unit, warnings=warnings, warning_count=warning_count
        )


def structure_problems(scratch: Scratch) -> None:
    """Across lines, as records.structure_problems says, by queries on the scratch: unique
    ids, and each conversation's turns 0..n-1 once each."""
    run = scratch.execute
    run("CREATE INDEX records_rid ON records (rid, pos)")
    run("CREATE INDEX records_conv ON records (conv, turn, pos)")
    for number, rid, first in run(
        "SELECT r.number, r.rid, (SELECT f.number FROM records f WHERE f.rid = r.rid ORDER BY f.pos LIMIT 1) "
        "FROM records r WHERE EXISTS (SELECT 1 FROM records e WHERE e.rid = r.rid AND e.pos < r.pos)"
    ):
        scratch.problem(number, "", f"duplicate id {rid!r} (line {first} has it too)")
    for number, conv, turn in run(
        "SELECT r.number, r.conv, r.turn FROM records r WHERE r.conv IS NOT NULL AND EXISTS "
        "(SELECT 1 FROM records e WHERE e.conv = r.conv AND e.turn = r.turn AND e.pos < r.pos)"
    ):
        scratch.problem(number, "turn", f"conversation {conv!r} has turn {turn} twice")
    for conv, top in run(
        "SELECT conv, MAX(turn) FROM records WHERE conv IS NOT NULL GROUP BY conv "
        "HAVING COUNT(DISTINCT turn) < MAX(turn) + 1"
    ):
        (missing,) = run(
            "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM records WHERE conv = ?1 AND turn = 0) THEN 0 ELSE "
            "(SELECT MIN(a.turn + 1) FROM records a WHERE a.conv = ?1 AND NOT EXISTS "
            "(SELECT 1 FROM records b WHERE b.conv = ?1 AND b.turn = a.turn + 1)) END",
            (conv,),
        ).fetchone()
        (number,) = run(
            "SELECT number FROM records WHERE conv = ? AND turn = ? ORDER BY pos LIMIT 1", (conv, top)
        ).fetchone()
        scratch.problem(number, "turn", f"conversation {conv!r} has no turn {missing}")


def history_key(messages: list[dict[str, str]]) -> bytes:
    """A conversation's messages so far, as a fixed-size key (OpenAI logs' threading)."""
    return hashlib.sha256(dumps(messages).encode()).digest()


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
