"""SpecPact workload JSONL: one request per line, its canonical form and its digest.

Pure pydantic, shared by the control plane (which imports other formats into it, stores
it and computes its digest) and the worker (which downloads it, checks the digest and
replays it). The format, line by line (a JSON object each; blank lines are skipped):

| field | meaning |
| --- | --- |
| `prompt` | a completion-style prompt, sent as is |
| `messages` | or chat messages `[{role, content}]` (system, user, assistant): this request's new ones |
| `synthetic_prompt` | or `{hash_ids, tokens, block_tokens}`: a trace without text (Mooncake) (1) |
| `max_tokens` | output tokens this request asked for (the run's `max_tokens` caps it) |
| `reference` | the output recorded for it (production answer, dataset completion): statistics only |
| `conversation`, `turn` | multi-turn: the conversation id and this request's turn (0, 1, …) (2) |
| `arrival_s` | when the request arrived, seconds from the trace's start: an open-loop schedule |
| `id` | unique within the workload; default `<conversation>#<turn>` or `line-<n>` |
| `lane`, `version`, `sampling` | what the built-in prompt sets carry (kept for them) |

Exactly one of `prompt`, `messages`, `synthetic_prompt`. Unknown fields are refused.
(1) the worker writes a stand-in prompt, one block of words per hash id, the same block
for the same id, so requests that share hash ids share a prefix. (2) Turn k is sent after
turn k-1 has been answered, with the target's *own* earlier answers in its history.

**Canonical form** (what is stored, downloaded and hashed): each record as JSON with its
keys sorted, no insignificant whitespace (`","` and `":"` separators), UTF-8 (no `\\u`
escapes for non-ASCII), absent and null fields left out, numbers as Python's `json`
writes them after validation (an `arrival_s` of `2` is `2.0`); one record per line, each
line ending in `\\n`, records in the order given. Key order, indentation, blank lines and
CRLF line ends of an upload therefore never change the digest; the text inside strings,
the records and their order do. The digest is `sha256:` + the hex SHA-256 of those bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from worker.harness.results.result import Sampling

RECORD_FORMAT = "specpact-workload/v1"
DIGEST_PREFIX = "sha256:"
# Mooncake's traces: "The block size is 512 tokens" (kvcache-ai/Mooncake FAST25-release/README.md).
MOONCAKE_BLOCK_TOKENS = 512
# Token counts (and turns) in a record: what a signed 32-bit int holds, as the engines' own
# request fields do (vLLM's `max_tokens`, a Python int, is checked against the model's
# context, far below it).
MAX_TOKENS = 2**31 - 1

Role = Literal["system", "user", "assistant"]


class WorkloadError(ValueError):
    """A workload that can't be used, with the line number where there is one."""


class LineError(WorkloadError):
    """Errors on numbered lines: ``problems`` is ``[(line, path, message)]``."""

    def __init__(
        self,
        source: str,
        problems: list[tuple[int, str, str]],
        unit: str = "line",
        *,
        lines: int | None = None,
    ) -> None:
        """`problems` may be the first of more: `lines` is how many lines have one (default:
        those in `problems`)."""
        self.source, self.problems, self.unit = source, problems, unit
        self.lines = lines if lines is not None else len({n for n, _, _ in problems})
        shown = "; ".join(
            f"{source} {unit} {n}: {path + ': ' if path else ''}{msg}" for n, path, msg in problems[:5]
        )
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(shown + more)


class _Model(BaseModel):
    # Prompts are read back from JSON by the hundred thousand, nearly all different: caching
    # their strings (pydantic's default, 16,384 of them) only holds memory; keys repeat.
    model_config = ConfigDict(extra="forbid", frozen=True, cache_strings="keys")


class Message(_Model):
    role: Role
    content: str = Field(min_length=1)


class SyntheticPrompt(_Model):
    """A prompt known only by its length and prefix-block hashes (Mooncake traces)."""

    hash_ids: list[Annotated[int, Field(ge=-MAX_INTEGER, le=MAX_INTEGER)]] = Field(
        min_length=1, description="one id per block; equal ids share a prefix"
    )
    tokens: int = Field(ge=1, le=MAX_TOKENS, description="the prompt's length in tokens")
    block_tokens: int = Field(default=MOONCAKE_BLOCK_TOKENS, ge=1, le=MAX_TOKENS)


class Record(_Model):
    id: str | None = Field(default=None, min_length=1, max_length=200)
    prompt: str | None = Field(default=None, min_length=1)
    messages: list[Message] | None = Field(default=None, min_length=1)
    synthetic_prompt: SyntheticPrompt | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS)
    reference: str | None = Field(default=None, min_length=1)
    conversation: str | None = Field(default=None, min_length=1, max_length=200)
    turn: int | None = Field(default=None, ge=0, le=MAX_TOKENS)
    arrival_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    lane: str | None = None
    version: str | None = None
    sampling: Sampling | None = None

    @model_validator(mode="after")
    def _one_prompt(self) -> Record:
        given = [k for k in ("prompt", "messages", "synthetic_prompt") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of prompt, messages or synthetic_prompt"
                + (f" (got {', '.join(given)})" if given else "")
            )
        if self.turn is not None and self.conversation is None:
            raise ValueError("turn needs a conversation id")
        if self.messages is not None and self.messages[-1].role == "assistant":
            raise ValueError("the last message is the assistant's: a request ends with what it asks")
        return self

    def canonical_line(self) -> str:
        data = self.model_dump(mode="json", exclude_none=True)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_bytes(records: Iterable[Record]) -> bytes:
    return "".join(r.canonical_line() + "\n" for r in records).encode("utf-8")


def digest_of(data: bytes) -> str:
    return DIGEST_PREFIX + hashlib.sha256(data).hexdigest()


def _error_path(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of the non-blank lines."""
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            yield number, raw


# Bounds on a line before (depth) and while (numbers) it becomes Python objects. The
# deepest line a supported format has is an OpenAI request whose tool parameters are a
# JSON schema; 64 leaves room for that and keeps Python's parser far from its recursion
# limit (10,000 deep is a RecursionError there, not a ValueError).
MAX_DEPTH = 64
# Integers a 64-bit signed column (PostgreSQL bigint, SQLite INTEGER) holds; every count
# in the format is far below it, and the fields say their own, lower bounds.
MAX_INTEGER = 2**63 - 1
# A JSON string, or one bracket: what the depth scan steps over and what it counts.
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]+|\\.)*"|[\[\]{}]')


class JsonLineError(ValueError):
    """A line that is JSON but out of bounds; ``path`` is the field, where there is one."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.msg, self.path = message, path


def json_depth_exceeds(raw: str, limit: int = MAX_DEPTH) -> bool:
    """Whether `raw` nests arrays/objects deeper than `limit` (brackets inside strings
    don't count). Linear in the line; most lines have too few brackets to need the scan."""
    if raw.count("[") + raw.count("{") <= limit:
        return False
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(raw):
        bracket = match.group()
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        elif bracket in "]}":
            depth -= 1
    return False


def out_of_bounds(value: object, path: str = "") -> tuple[str, str] | None:
    """(path, reason) of the first number JSON can't carry here (depth is bounded first)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) > MAX_INTEGER:
        return path, f"the integer is out of range (at most {MAX_INTEGER} in magnitude)"
    if isinstance(value, float) and not math.isfinite(value):
        return path, "the number is out of range (not a finite number)"
    if isinstance(value, dict):
        for k, v in value.items():
            found = out_of_bounds(v, f"{path}.{k}" if path else str(k))
            if found:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = out_of_bounds(v, f"{path}[{i}]")
            if found:
                return found
    return None


def bounded_decoder() -> tuple[json.JSONDecoder, list[bool]]:
    """A decoder refusing NaN/Infinity, and a flag its number hooks raise on a number out
    of range (so that only such a line is walked to find the field)."""
    out_of_range = [False]

    def refuse(name: str) -> float:
        raise JsonLineError(f"{name} is not valid JSON")

    def integer(text: str) -> int:
        value = int(text)  # past 4300 digits Python refuses it: a ValueError, "not valid JSON"
        if len(text) > 18 and abs(value) > MAX_INTEGER:
            out_of_range[0] = True
        return value

    def real(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):  # 1e999 parses to inf
            out_of_range[0] = True
        return value

    return json.JSONDecoder(parse_constant=refuse, parse_int=integer, parse_float=real), out_of_range


def parse_object(raw: str) -> object:
    """json.loads, bounded: nesting deeper than MAX_DEPTH, NaN/Infinity (not JSON), numbers
    that are infinite as floats or beyond MAX_INTEGER are a ValueError (a JsonLineError
    naming the field where there is one), never a RecursionError or an OverflowError later."""
    if json_depth_exceeds(raw):
        raise JsonLineError(f"nested more than {MAX_DEPTH} deep")
    decoder, out_of_range = bounded_decoder()
    value = decoder.decode(raw)
    if out_of_range[0]:
        found = out_of_bounds(value)
        if found is not None:
            raise JsonLineError(found[1], found[0])
    return value


def record_problems(number: int, obj: object) -> tuple[Record | None, list[tuple[int, str, str]]]:
    if not isinstance(obj, dict):
        return None, [(number, "", "expected a JSON object")]
    try:
        return Record.model_validate(obj), []
    except ValidationError as exc:
        return None, [
            (number, _error_path(e["loc"]), e["msg"].removeprefix("Value error, ")) for e in exc.errors()
        ]


def parse_records(text: str, *, source: str) -> list[tuple[int, Record]]:
    """Every line of SpecPact JSONL, validated; all the bad lines at once (LineError)."""
    out: list[tuple[int, Record]] = []
    problems: list[tuple[int, str, str]] = []
    for number, raw in iter_lines(text):
        try:
            obj = parse_object(raw)
        except ValueError as exc:
            problems.append((number, "", f"not valid JSON ({getattr(exc, 'msg', exc)})"))
            continue
        record, bad = record_problems(number, obj)
        problems += bad
        if record is not None:
            out.append((number, record))
    problems += structure_problems(out)
    if problems:
        raise LineError(source, sorted(problems))
    if not out:
        raise WorkloadError(f"{source}: no prompts")
    return out


def default_id(number: int, record: Record) -> str:
    if record.id is not None:
        return record.id
    if record.conversation is not None:
        return f"{record.conversation}#{record.turn or 0}"
    return f"line-{number}"


def structure_problems(records: Sequence[tuple[int, Record]]) -> list[tuple[int, str, str]]:
    """Across lines: unique ids, and each conversation's turns 0..n-1 once each."""
    problems: list[tuple[int, str, str]] = []
    seen: dict[str, int] = {}
    turns: dict[str, dict[int, int]] = {}
    for number, record in records:
        rid = default_id(number, record)
        if rid in seen:
            problems.append((number, "", f"duplicate id {rid!r} (line {seen[rid]} has it too)"))
        seen.setdefault(rid, number)
        if record.conversation is not None:
            by_turn = turns.setdefault(record.conversation, {})
            turn = record.turn or 0
            if turn in by_turn:
                problems.append(
                    (number, "turn", f"conversation {record.conversation!r} has turn {turn} twice")
                )
            by_turn.setdefault(turn, number)
    for conv, by_turn in turns.items():
        missing = [t for t in range(max(by_turn) + 1) if t not in by_turn]
        if missing:
            problems.append(
                (by_turn[max(by_turn)], "turn", f"conversation {conv!r} has no turn {missing[0]}")
            )
    return problems


# Stand-in text for synthetic prompts -------------------------------------------------

# Short common words, one token each in the common tokenizers, so a block of N words is
# close to N tokens (the real count depends on the target's tokenizer).
_WORD_TEXT = (
    "the of and to in is it that for on was with as by at be this from or an are not but had his they"
    " you were her she which we all there one been has when who will more no if out so said what up its"
    " about into than them can only other new some could time these two may then do first any my now"
    " such like our over man me even most made after also did many before must through back years where"
    " much your way well down should because each just those people how too little state good very make"
    " world still own see men work long get here between both life being under never day same another"
    " know while last might us great old year off come since against go came right used take three"
)
_WORDS = tuple(_WORD_TEXT.split())


@lru_cache(maxsize=4096)
def _block_text(hash_id: int, count: int) -> str:
    # Shared prefixes repeat the same blocks request after request: write each once.
    return " ".join(_block_words(hash_id, count))


def _block_words(hash_id: int, count: int) -> list[str]:
    # A 64-bit linear congruential walk seeded by the hash id: portable and deterministic,
    # so equal ids give equal text (shared prefixes stay shared) on every machine.
    x = (hash_id * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % 2**64
    words = []
    for _ in range(count):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        words.append(_WORDS[(x >> 33) % len(_WORDS)])
    return words


def synthesize(prompt: SyntheticPrompt) -> str:
    """One block of words per hash id; the last block holds what is left of `tokens`."""
    blocks = []
    left = prompt.tokens
    for i, hid in enumerate(prompt.hash_ids):
        if left <= 0:
            break
        last = i == len(prompt.hash_ids) - 1
        n = left if last else min(prompt.block_tokens, left)
        blocks.append(_block_text(hid, n))
        left -= n
    return "\n".join(blocks)


TOKEN_PATTERN = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """Words and punctuation marks: the control plane has no tokenizer, and this is within
    a small factor of the common subword tokenizers for prose."""
    return len(TOKEN_PATTERN.findall(text))


def record_tokens(record: Record) -> int:
    if record.synthetic_prompt is not None:
        return record.synthetic_prompt.tokens
    if record.prompt is not None:
        return estimate_tokens(record.prompt)
    return sum(estimate_tokens(m.content) for m in record.messages or [])
