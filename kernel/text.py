"""Free text people type (reasons, justifications, names, descriptions): the caps, in one
place, and how long a text is once what cannot be seen is taken out.

A justification of 30 zero-width spaces is 30 characters to `len()` and nothing to a
reader. `visible_text` drops format characters (Unicode category Cf: zero-width spaces and
joiners, bidi controls, the BOM, soft hyphens), control characters, and the "blank"
letters that render as nothing (Hangul fillers, the braille blank), then folds every run
of whitespace (Zs, line and paragraph separators, tabs, newlines) into one space and trims
the ends. Minimum lengths are measured on that; what is stored is what was typed (bidi
marks and joiners are legitimate in names and in right-to-left text).

The caps are the serializers', the page forms' and the services' (which check again, so
that no path stores more).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

from kernel.errors import DomainError, FieldError

REASON_MAX = 2000
JUSTIFICATION_MAX = 4000
DESCRIPTION_MAX = 4000
NAME_MAX = 100
NOTE_MAX = 500
FAILURE_REASON_MAX = 4000

# Letters (Lo) and symbols (So) that render as blank space.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Python's \s is str.isspace(): every Zs, Zl and Zp character, tabs and newlines.
_SPACES = re.compile(r"\s+")


def _seen(ch: str) -> bool:
    if ch in _BLANK_LETTERS:
        return False
    category = unicodedata.category(ch)
    # Cf: format; Cc: control (whitespace controls are folded below, not dropped).
    return category != "Cf" and (category != "Cc" or ch.isspace())


def visible_text(text: str) -> str:
    """`text` as a reader sees it: invisible characters out, whitespace folded, trimmed."""
    kept = "".join(ch for ch in text if _seen(ch))
    # \s misses the separators of category Zs that str.isspace() knows (e.g. U+3000 is in both).
    kept = "".join(
        " " if ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp") else ch for ch in kept
    )
    return _SPACES.sub(" ", kept).strip()


def visible_length(text: str) -> int:
    return len(visible_text(text))


def checked_text(
    value: str | None, *, field: str, max_length: int, min_visible: int = 0, what: str | None = None
) -> str:
    """`value` trimmed, refused (DomainError naming `field`) when it is longer than
    `max_length` or shows fewer than `min_visible` characters."""
    text = (value or "").strip()
    label = what or field.replace("_", " ")
    if len(text) > max_length:
        raise DomainError(
            f"The {label} is {len(text)} characters; at most {max_length} are allowed.",
            errors=[FieldError(field, f"at most {max_length} characters")],
        )
    shown = visible_length(text)
    if shown < min_visible:
        need = "some visible text" if min_visible == 1 else f"at least {min_visible} visible characters"
        raise DomainError(
            f"The {label} needs {need} (got {shown}; invisible characters don't count).",
            errors=[FieldError(field, f"{need} (got {shown})")],
        )
    return text


def utc_words(iso: object) -> str:
    """An ISO time (as JSON keeps one) as people read it, in UTC and saying so:
    "2026-03-02 09:00:00 UTC". What isn't a time comes back as it was."""
    if not iso:
        return ""
    try:
        return datetime.fromisoformat(str(iso)).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except ValueError:
        return str(iso)
