r"""The optional redaction pass on import: prompts, messages and reference outputs with
e-mail addresses, phone numbers, long digit runs and configured patterns replaced by a
placeholder, counted by kind. It runs before the canonical form is taken, so the digest
is that of the redacted workload, and the original text is never stored.

Patterns are a first line of defence for the obvious, not an anonymiser: names, addresses
and free-text identifiers pass through. Configured patterns come from the
`WORKLOAD_REDACT_PATTERNS` setting and the upload (`redact_pattern`). They are compiled
with RE2, which matches in time linear in the text whatever the pattern (Python's `re`
backtracks: `(a+)+$` on thirty characters never finishes); RE2 has no backreferences or
lookaround, and its `\w`, `\d`, `\s`, `\b` are ASCII (`\pL`, `\pN` for any script). A
pattern RE2 refuses is a ValueError naming it, as any bad pattern. The built-in patterns
below are ours, use lookbehind, and stay on `re`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import re2

from worker.workloads.records import Message, Record

EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?!\w)")
# Groups of digits with separators, as people write phone numbers: "+44 20 7946 0958",
# "(555) 123-4567", "555.123.4567". Nine digits at least, so that dates and times stay.
PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w])"
)
# Account, card and ID numbers written without separators.
DIGITS = re.compile(r"(?<!\d)\d{9,}(?!\d)")
MIN_PHONE_DIGITS = 9
MAX_PATTERNS = 20
MAX_PATTERN_LENGTH = 300

PLACEHOLDERS = {"email": "[EMAIL]", "phone": "[PHONE]", "digits": "[NUMBER]", "pattern": "[REDACTED]"}


class _Pattern(Protocol):
    """What the pass needs of a compiled pattern, `re`'s or RE2's."""

    def sub(self, repl: Callable[[Any], str], string: str, /) -> str: ...


@dataclass(frozen=True)
class Redaction:
    patterns: tuple[tuple[str, _Pattern], ...]


def _linear(text: str) -> _Pattern:
    """`text` compiled by RE2 (re2.error when RE2 can't: a backreference, lookaround, too big)."""
    options = re2.Options()
    options.log_errors = False  # the refusal is the caller's answer, not a log line with the pattern
    return re2.compile(text, options)


def redaction(extra: Sequence[str] = ()) -> Redaction:
    """The built-in patterns plus `extra` (ValueError naming the one that can't be used)."""
    if len(extra) > MAX_PATTERNS:
        raise ValueError(f"at most {MAX_PATTERNS} redaction patterns")
    compiled: list[tuple[str, _Pattern]] = [("email", EMAIL), ("phone", PHONE), ("digits", DIGITS)]
    for i, text in enumerate(extra):
        if not text or len(text) > MAX_PATTERN_LENGTH:
            raise ValueError(f"pattern {i + 1}: 1 to {MAX_PATTERN_LENGTH} characters")
        try:
            compiled.append(("pattern", _linear(text)))
        except re2.error as exc:
            said = exc.args[0] if exc.args else exc
            reason = said.decode(errors="replace") if isinstance(said, bytes) else said
            raise ValueError(
                f"pattern {i + 1} ({text!r}) is not a regular expression RE2 can run in linear time: {reason}"
            ) from None
    return Redaction(tuple(compiled))


def _redact(text: str, redaction: Redaction, counts: dict[str, int]) -> str:
    for kind, pattern in redaction.patterns:

        def replace(match: Any, kind: str = kind) -> str:  # re.Match or RE2's match
            if kind == "phone" and sum(ch.isdigit() for ch in match.group(0)) < MIN_PHONE_DIGITS:
                return match.group(0)
            if not match.group(0):
                return ""
            counts[kind] = counts.get(kind, 0) + 1
            return PLACEHOLDERS[kind]

        text = pattern.sub(replace, text)
    return text


def redact_record(r: Record, redaction: Redaction, counts: dict[str, int]) -> Record:
    """The record with its text redacted; `counts` gains the replacements by kind (an
    import redacts record by record, as it streams)."""
    update: dict[str, object] = {}
    if r.prompt is not None:
        update["prompt"] = _redact(r.prompt, redaction, counts)
    if r.messages is not None:
        update["messages"] = [
            Message(role=m.role, content=_redact(m.content, redaction, counts)) for m in r.messages
        ]
    if r.reference is not None:
        update["reference"] = _redact(r.reference, redaction, counts)
    return r.model_copy(update=update) if update else r


def redaction_counts(counts: dict[str, int]) -> dict[str, int]:
    """What a version says of its redaction: every built-in kind, and patterns where used."""
    return {kind: counts.get(kind, 0) for kind in PLACEHOLDERS if kind in counts or kind != "pattern"}


def redact_records(records: Sequence[Record], redaction: Redaction) -> tuple[list[Record], dict[str, int]]:
    """The records with their text redacted, and how many replacements of each kind."""
    counts: dict[str, int] = {}
    out = [redact_record(r, redaction, counts) for r in records]
    return out, redaction_counts(counts)
