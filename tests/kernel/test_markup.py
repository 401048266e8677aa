"""kernel.markup.fmt escapes as `format_html` does: text escaped, safe values kept,
lazy text, numbers and None written as the template engine writes them."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils.functional import lazystr
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from kernel.markup import esc, fmt, joined

VALUES: list[Any] = [
    "<b>\"x\" & 'y'</b>",
    mark_safe("<i>kept</i>"),
    lazystr("<lazy & 'text'>"),
    7,
    1.5,
    None,
    "",
    "plain",
]


@pytest.mark.parametrize("value", VALUES)
def test_fmt_is_format_html(value: Any) -> None:
    template = '<a href="{}" title="{}">{}</a>'
    assert fmt(template, value, value, value) == format_html(template, value, value, value)
    assert fmt("<p>{x}</p>", x=value) == format_html("<p>{x}</p>", x=value)
    assert isinstance(fmt("{}", value), SafeString)


def test_esc_keeps_safe_text_and_escapes_the_rest() -> None:
    assert esc(mark_safe("<i>")) == "<i>" and esc("<i>") == "&lt;i&gt;" and esc("'\"") == "&#x27;&quot;"


def test_joined_is_safe_and_keeps_its_parts() -> None:
    out = joined([fmt("<b>{}</b>", "<"), fmt("<i>{}</i>", ">")], ", ")
    assert isinstance(out, SafeString) and out == "<b>&lt;</b>, <i>&gt;</i>"
