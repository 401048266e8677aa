"""Many links to one view at the cost of one `reverse`: a page that links every cell of a
500-route grid spent half its CPU resolving the same pattern 1,500 times (issue 26, profile
item 1)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from django.urls import reverse
from django.utils.http import RFC3986_SUBDELIMS

# Digits only: they match the `int` converter's pattern as well as `str`'s and `slug`'s.
_MARKERS = ("9081726354", "8172635490")
_SAFE = RFC3986_SUBDELIMS + "/~:@"


def _parts(name: str, arity: int) -> list[str]:
    """The path of `name` cut where its `arity` arguments go."""
    path = reverse(name, args=list(_MARKERS[:arity]))
    parts = []
    for marker in _MARKERS[:arity]:
        before, path = path.split(marker, 1)
        parts.append(before)
    return [*parts, path]


def _quoted(arg: object) -> str:
    return quote(str(arg), safe=_SAFE)


def url_maker(name: str) -> Callable[[object], str]:
    """`reverse(name, args=[x])` for a view whose path takes one argument: the path is
    resolved once with a marker in the argument's place, then filled in per call, quoted as
    `reverse` quotes it."""
    prefix, suffix = _parts(name, 1)

    def make(arg: object) -> str:
        return f"{prefix}{_quoted(arg)}{suffix}"

    return make


def url_maker2(name: str) -> Callable[[object, object], str]:
    """`url_maker` for a view whose path takes two arguments (a route's slug and a version's
    number)."""
    prefix, middle, suffix = _parts(name, 2)

    def make(first: object, second: object) -> str:
        return f"{prefix}{_quoted(first)}{middle}{_quoted(second)}{suffix}"

    return make
