"""The fleet table's rows, made in Python: one cell per lane and route of the page (125 at
25 routes and five lanes), each through the template engine, were the part of the fleet
page that grew with the routes shown (issue 26, point 1). The markup is the template's as
it was, each value escaped as the template escaped it (`format_html`)."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

_EMPTY = mark_safe('<td><span class="muted">—</span></td>')  # a constant


def _cell(cell: dict[str, Any] | None) -> SafeString:
    if not cell:
        return _EMPTY
    since = cell["since"]
    return format_html(
        '<td><strong>{}</strong> <span class="badge badge-{}">{}</span><div class="muted">{} at {}, '
        '<a href="{}">release #{}</a>{}</div></td>',
        cell["speedup_words"],
        cell["gate_verdict"],
        cell["gate_verdict"],
        cell["metric"],
        cell["level"],
        cell["release_url"],
        cell["release_id"],
        format_html(', active since <time datetime="{}">{}</time>', since["iso"], since["day"])
        if since
        else "",
    )


def fleet_rows(table: list[tuple[str, list[dict[str, Any] | None]]]) -> SafeString:
    """Each lane's `<tr>`: its name, then its cell for each route of the page (or a dash)."""
    return mark_safe(  # noqa: S308  # each part made by format_html
        "".join(
            format_html(
                '\n  <tr><th scope="row">{}</th>\n    {}\n  </tr>\n  ',
                lane,
                mark_safe("".join(_cell(c) for c in cells)),  # noqa: S308  # each made by format_html
            )
            for lane, cells in table
        )
    )
