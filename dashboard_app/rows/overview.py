"""The routes overview's table rows, made in Python: 50 rows a page through the template
engine (some 40 variable lookups, filters and tags a row, an include for the conformance
cell) were most of the page's CPU at the full scale, and the part that grew with the page
(issue 26, point 1). The markup is the template's as it was, each value escaped as the
template escaped it (`kernel.markup.fmt`, which is `format_html`)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from django.utils.safestring import SafeString
from django.utils.text import Truncator

from dashboard_app.selectors.conformance import Conformance
from dashboard_app.selectors.overview import RouteRow, Speedup
from kernel.markup import esc, fmt, joined
from kernel.templatetags.pages import breakable
from kernel.urls import url_maker, url_maker2

DESCRIPTION_CHARS = 90  # what `|truncatechars:90` kept
_NONE = SafeString('<span class="muted">—</span>')

_ROW = (
    "\n  <tr>\n"
    '    <td><a href="{route_url}"><strong>{slug}</strong></a><div class="muted">{description}</div></td>\n'
    "    <td>{active}</td>\n"
    "    <td>{lanes}\n        {excluded}</td>\n"
    "    <td>{verdict}</td>\n"
    "    <td>{speedups}\n        {current}\n        {history}</td>\n"
    "    \n{conformance}\n\n"
    "    <td>{pending}</td>\n"
    "  </tr>\n  "
)


def _truncated(text: str) -> str:
    """`|truncatechars:90`: Django's Truncator (NFC, combining characters not counted),
    skipped when the normalised text is that short already (it returns it whole then)."""
    normal = unicodedata.normalize("NFC", text)
    return normal if len(normal) <= DESCRIPTION_CHARS else Truncator(text).chars(DESCRIPTION_CHARS)


def _active(row: RouteRow, version_url: Callable[[object, object], str]) -> SafeString:
    version = row.route.active_version
    if version is None:
        return SafeString('<span class="muted">none active</span>')
    since = row.since
    return fmt(
        '<a href="{}">v{}</a> <code>{}</code>\n          {}\n        ',
        version_url(row.route.slug, version.number),
        version.number,
        row.method,
        fmt('<div class="muted">since <time datetime="{}">{} UTC</time></div>', since["iso"], since["minute"])
        if since
        else "",
    )


def _lanes(row: RouteRow) -> SafeString:
    return joined(fmt('<span class="lane">{}</span> ', lane) for lane in row.lanes) or _NONE


def _excluded(row: RouteRow) -> SafeString | str:
    if not row.excluded:
        return ""
    # `|join:", "` escapes each item (and the joiner).
    return fmt('<div class="muted">excluded: {}</div>', joined((esc(x) for x in row.excluded), ", "))


def _verdict(row: RouteRow, gated_url: str | None) -> SafeString:
    if not row.verdict:
        return SafeString('<span class="muted">not measured</span>')
    history = (
        fmt(' <span class="badge badge-{}">{}</span>', row.gated_release_state, row.gated_release_state_words)
        if row.verdict_is_history
        else ""
    )
    return fmt(
        '<a href="{}"><span class="badge badge-{}">{}</span></a> <span class="muted">release #{}</span>{}',
        gated_url,
        row.verdict,
        row.verdict,
        row.gated_release_id,
        history,
    )


def _speedup(s: Speedup) -> SafeString:
    return fmt(
        '<div><strong>{}</strong> <span class="muted">{}, {} at {}</span></div>',
        s.words,
        s.lane,
        s.metric,
        s.level_words,
    )


def _speedups(row: RouteRow) -> SafeString:
    if row.speedups:
        return joined(_speedup(s) for s in row.speedups)
    version = row.route.active_version
    return fmt(
        '<span class="muted">{}</span>',
        fmt("not measured for v{}", version.number) if version is not None else "—",
    )


def _current(row: RouteRow, current_url: str | None) -> SafeString | str:
    if not row.speedups:
        return ""
    since = row.since
    return fmt(
        '<div class="muted">active now: <a href="{}">release #{}</a>{}</div>',
        current_url,
        row.current_release_id,
        fmt(', since <time datetime="{}">{}</time>', since["iso"], since["day"]) if since else "",
    )


def _history(row: RouteRow, gated_url: str | None) -> SafeString | str:
    if not row.history_speedups:
        return ""
    measured = joined((fmt("{} ({})", s.words, s.lane) for s in row.history_speedups), ", ")
    return fmt(
        '<div class="muted history">{}: {} in <a href="{}">release #{}</a>, {}</div>',
        "history" if row.verdict_is_history else "candidate, not active",
        measured,
        gated_url,
        row.gated_release_id,
        row.gated_release_state_words,
    )


def _conformance(conformance: list[Conformance], route_url: str) -> SafeString:
    """What `dashboard/_conformance_cell.html` drew."""
    cells = joined(
        fmt(
            '<div><a href="{}#endpoints">{}</a> <span class="badge badge-{}">{}</span>{}</div>',
            route_url,
            c.name,
            c.state,
            c.state,
            fmt(' <span class="muted">{}</span>', breakable(c.words)) if c.words else "",
        )
        for c in conformance
    )
    return fmt(
        '<td class="conformance">{}</td>',
        cells or SafeString('<span class="muted">no live endpoints</span>'),
    )


def _pending(row: RouteRow, open_url: str | None) -> SafeString:
    if not row.open_release_id:
        return _NONE
    return fmt(
        '<a href="{}">release #{}</a> <span class="badge badge-{}">{}</span>',
        open_url,
        row.open_release_id,
        row.open_release_state,
        row.open_release_state_words,
    )


def overview_rows(rows: list[RouteRow]) -> SafeString:
    """The `<tr>` of each route, in the order given."""
    route_url, release_url = url_maker("route-detail"), url_maker("release-detail")
    version_url = url_maker2("version-detail")

    def release(pk: int | None) -> str | None:
        return release_url(pk) if pk is not None else None

    out = []
    for row in rows:
        link = route_url(row.route.slug)
        gated = release(row.gated_release_id)
        out.append(
            fmt(
                _ROW,
                route_url=link,
                slug=row.route.slug,
                description=_truncated(row.description),
                active=_active(row, version_url),
                lanes=_lanes(row),
                excluded=_excluded(row),
                verdict=_verdict(row, gated),
                speedups=_speedups(row),
                current=_current(row, release(row.current_release_id)),
                history=_history(row, gated),
                conformance=_conformance(row.conformance, link),
                pending=_pending(row, release(row.open_release_id)),
            )
        )
    return joined(out)
