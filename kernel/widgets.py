"""Form widgets drawn without Django's widget templates: a list page's filter form (four
fields, one a 13-option select) cost about 1 ms a request through `select.html`,
`select_option.html`, `input.html` and `attrs.html` included once per option, most of a
floor (issue 26, point 1). `PlainWidgets` writes what those templates write, byte for byte
(tests/kernel/test_plain_widgets.py holds it to them), and hands any other template to
Django's renderer."""

from __future__ import annotations

from typing import Any

from django.forms.renderers import DjangoTemplates
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData

_INPUT = "django/forms/widgets/input.html"
_SELECT = "django/forms/widgets/select.html"
_OPTION = "django/forms/widgets/select_option.html"
# Each of these is `{% include "django/forms/widgets/input.html" %}` and nothing else.
_INPUTS = frozenset(
    f"django/forms/widgets/{kind}.html"
    for kind in ("input", "text", "number", "email", "url", "search", "hidden")
)


def _formatted(value: Any) -> str:
    """`{{ value|stringformat:'s' }}`: the filter keeps a safe value safe, else it is escaped."""
    text = "%s" % (str(value) if isinstance(value, tuple) else value)  # the filter's own formatting
    return text if isinstance(value, SafeData) else str(conditional_escape(text))


def _attrs(attrs: dict[str, Any]) -> str:
    """`attrs.html`: ` name="value"`, a bare ` name` for True, nothing for False."""
    return "".join(
        f" {conditional_escape(name)}"
        if value is True
        else f' {conditional_escape(name)}="{_formatted(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


def _input(widget: dict[str, Any]) -> str:
    value = f' value="{_formatted(widget["value"])}"' if widget["value"] is not None else ""
    return (
        f'<input type="{conditional_escape(widget["type"])}" name="{conditional_escape(widget["name"])}"'
        f"{value}{_attrs(widget['attrs'])}>"
    )


def _option(option: dict[str, Any]) -> str:
    return (
        f'<option value="{_formatted(option["value"])}"{_attrs(option["attrs"])}>'
        f"{conditional_escape(option['label'])}</option>\n"
    )


def _select(widget: dict[str, Any]) -> str | None:
    parts = [f'<select name="{conditional_escape(widget["name"])}"{_attrs(widget["attrs"])}>']
    for group_name, options, _index in widget["optgroups"]:
        if group_name:
            parts.append(f'\n  <optgroup label="{conditional_escape(group_name)}">')
        for option in options:
            if option["template_name"] != _OPTION:
                return None
            parts.append(f"\n  {_option(option)}")
        if group_name:
            parts.append("\n  </optgroup>")
    parts.append("\n</select>")
    return "".join(parts)


class PlainWidgets(DjangoTemplates):
    """Django's default form renderer, with text inputs and selects written in Python."""

    def render(self, template_name: str, context: dict[str, Any], request: Any = None) -> str:
        widget = context.get("widget")
        html = None
        if isinstance(widget, dict):
            if template_name in _INPUTS:
                html = _input(widget)
            elif template_name == _SELECT:
                html = _select(widget)
        # The widget marks what a renderer returns safe: every value above was escaped as
        # the templates escape it.
        return super().render(template_name, context, request) if html is None else html.strip()
