"""The fleet table's rows, made in Python: one cell per lane and route of the page (125 at
25 routes and five lanes), each through the template engine, were the part of the fleet
page that grew with the routes shown (issue 26, point 1). The markup is the template's as
it was, each value escaped as the template escaped it (`kernel.markup.fmt`)."""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString

from kernel.markup import fmt, joined

_EMPTY = SafeString('<td><span class="muted">—</span></td>')


def _cell(cell: dict[str, Any] | None) -> SafeString:
    if not cell:
        return _EMPTY
    since = cell["since"]
    return fmt(
        '<td><strong>{}</strong> <span class="badge badge-{}">{}</span><div class="muted">{} at {}, '
        '<a href="{}">release #{}</a>{}</div></td>',
        cell["speedup_words"],
        cell["gate_verdict"],
        cell["gate_verdict"],
        cell["metric"],
        cell["level"],
        cell["release_url"],
        cell["release_id"],
        fmt(', active since <time datetime="{}">{}</time>', since["iso"], since["day"]) if since else "",
    )


def fleet_rows(table: list[tuple[str, list[dict[str, Any] | None]]]) -> SafeString:
    """Each lane's `<tr>`: its name, then its cell for each route of the page (or a dash)."""
    return joined(
        fmt('\n  <tr><th scope="row">{}</th>\n    {}\n  </tr>\n  ', lane, joined(_cell(c) for c in cells))
        for lane, cells in table
    )
