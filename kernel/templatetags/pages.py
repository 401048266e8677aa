"""Filters every template has (TEMPLATES' `builtins`), for values people read on a page.

`breakable`: a long unbroken value (`workload:support-chat@sha256:…`, a field path, a URL)
may wrap where a reader expects it to, after `.`, `@`, `:`, `/`, `,` and `=`, rather than
push its table past the window or break letter by letter (`overflow-wrap: anywhere`). A
run of 32 or more characters with no such place (a 64-digit hex digest) gets one every 16.
The value is escaped first; only the `<wbr>` elements are markup.
"""

from __future__ import annotations

import re

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from kernel.text import utc_words

register = template.Library()

_AFTER = re.compile(r"([.@:/,=])(?=\S)")
_RUN = re.compile(r"[^\s.@:/,=&;]{32,}")
RUN_STEP = 16


def _split_run(match: re.Match[str]) -> str:
    run = match.group(0)
    return "<wbr>".join(run[i : i + RUN_STEP] for i in range(0, len(run), RUN_STEP))


@register.filter(is_safe=True)
def breakable(value: object) -> SafeString:
    text = str(conditional_escape(value if isinstance(value, str) else str(value)))
    # Escaping turned & < > " ' into entities: `&amp;` is one unit (its `;` and `&` are
    # kept out of the run pattern, and `_AFTER` never splits inside one).
    text = _RUN.sub(_split_run, text)
    return mark_safe(_AFTER.sub(r"\1<wbr>", text))  # noqa: S308 - escaped above; adds only <wbr>


register.filter("utc_words", utc_words)
