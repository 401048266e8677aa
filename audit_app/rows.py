"""The audit page's table rows, made in Python: 100 rows of eight cells each through the
template engine (a variable lookup, a filter or a tag per cell, `{% url %}` and `date`
among them) were most of the page's CPU (issue 26, point 1). The markup is the template's
as it was, each value escaped as the template escaped it.

The rows are read as tuples of the columns shown (`shown`), not as events: at 100 a page,
building the instances and `format_html`'s escaping (a lazy-aware wrapper per argument,
11 a row) were half of what the rows still cost. `html.escape` is what Django's `escape`
applies to a string, so the bytes are the same."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from html import escape
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from audit_app.links import object_linker
from audit_app.models import AuditEvent
from kernel.markup import fmt, joined
from kernel.urls import url_maker

# What a row shows, in the order `event_rows` reads it.
_COLUMNS = ("id", "at", "actor_label", "action", "object_type", "object_id", "route", "reason", "hash")
EventRow = tuple[int, datetime, str, str, str, str, str, str, str]

_ROW = (
    '\n    <tr id="event-{id}"{broken}>\n'
    "      <td>{id}</td>\n"
    '      <td><time datetime="{at_iso}" data-zone="utc">{at_words} UTC</time></td>\n'
    '      <td class="mono">{actor}</td>\n'
    '      <td class="mono">{action}</td>\n'
    '      <td class="mono">{object}</td>\n'
    "      <td>{route}</td>\n"
    "      <td>{reason}</td>\n"
    '      <td class="mono" title="{hash}">{hash_short}…</td>\n'
    "    </tr>\n  "
)


def shown(events: QuerySet[Any]) -> QuerySet[Any]:
    """`events` (filtered, ordered) as the rows `event_rows` takes."""
    return events.values_list(*_COLUMNS)


def event_rows(events: Iterable[EventRow], *, first_broken: int | None = None) -> SafeString:
    """The `<tr>` of each event (`shown`'s rows), newest first as given; the first broken
    one marked."""
    link, route_url = object_linker(), url_maker("route-detail")
    zone = timezone.get_current_timezone()  # as `|date` showed the time: in the current zone (UTC)
    rows = []
    for id_, at_utc, actor, action, object_type, object_id, route, reason, hash_ in events:
        name = escape(f"{object_type}:{object_id}")
        href = link(object_type, str(object_id), route or "")
        at = at_utc.astimezone(zone)
        rows.append(
            _ROW.format(
                id=id_,
                broken=' class="diff-old"' if id_ == first_broken else "",
                at_iso=at.isoformat(),
                at_words=at.strftime("%Y-%m-%d %H:%M:%S"),
                actor=escape(actor),
                action=escape(action),
                object=f'<a href="{escape(href)}">{name}</a>' if href else name,
                route=f'<a href="{escape(route_url(route))}">{escape(route)}</a>' if route else "",
                reason=escape(reason),
                hash=escape(hash_),
                hash_short=escape(hash_[:12]),
            )
        )
    return mark_safe("".join(rows))  # noqa: S308  # every value above escaped


_TIMELINE_ROW = (
    "\n      <tr>\n"
    '        <td data-label="When"><time datetime="{at_iso}">{at_words} UTC</time></td>\n'
    '        <td data-label="Who" class="mono">{actor}</td>\n'
    '        <td data-label="What" class="mono">{action}</td>\n'
    '        <td data-label="State">{state}</td>\n'
    '        <td data-label="Reason">{reason}</td>\n'
    "      </tr>\n    "
)


def timeline_rows(events: Iterable[AuditEvent]) -> SafeString:
    """A release page's timeline rows (`releases/_timeline.html`), oldest first as given: the
    state each event moved the release from and to, and an override's justification."""
    rows = []
    for e in events:
        before = e.before if isinstance(e.before, dict) else {}
        after = e.after if isinstance(e.after, dict) else {}
        state = [
            fmt('<span class="badge badge-{}">{}</span> → ', before["state"], before["state"])
            if before.get("state")
            else "",
            fmt('<span class="badge badge-{}">{}</span>', after["state"], after["state"])
            if after.get("state")
            else "",
            fmt('<div class="muted">override: {}</div>', after["justification"])
            if after.get("justification")
            else "",
        ]
        at = timezone.localtime(e.at)  # as `|date` showed it: in the current zone (UTC)
        rows.append(
            fmt(
                _TIMELINE_ROW,
                at_iso=at.isoformat(),
                at_words=at.strftime("%Y-%m-%d %H:%M:%S"),
                actor=e.actor_label,
                action=e.action,
                state=joined(state),
                reason=e.reason,
            )
        )
    return joined(rows)
