"""The audit page's table rows, made in Python: 100 rows of eight cells each through the
template engine (a variable lookup, a filter or a tag per cell, `{% url %}` and `date`
among them) were most of the page's CPU (issue 26, point 1). The markup is the template's
as it was, each value escaped as the template escaped it (`format_html`)."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from audit_app.links import object_linker
from audit_app.models import AuditEvent
from kernel.urls import url_maker

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


def event_rows(events: Iterable[AuditEvent], *, first_broken: int | None = None) -> SafeString:
    """The `<tr>` of each event, newest first as given; the first broken one marked."""
    link, route_url = object_linker(), url_maker("route-detail")
    rows = []
    for e in events:
        name = f"{e.object_type}:{e.object_id}"
        href = link(e.object_type, str(e.object_id), e.route or "")
        at = timezone.localtime(e.at)  # as `|date` showed it: in the current zone (UTC)
        rows.append(
            format_html(
                _ROW,
                id=e.id,
                broken=mark_safe(' class="diff-old"') if e.id == first_broken else "",  # a constant
                at_iso=at.isoformat(),
                at_words=at.strftime("%Y-%m-%d %H:%M:%S"),
                actor=e.actor_label,
                action=e.action,
                object=format_html('<a href="{}">{}</a>', href, name) if href else name,
                route=format_html('<a href="{}">{}</a>', route_url(e.route), e.route) if e.route else "",
                reason=e.reason,
                hash=e.hash,
                hash_short=e.hash[:12],
            )
        )
    return mark_safe("".join(rows))  # noqa: S308  # each row made by format_html


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
            format_html('<span class="badge badge-{}">{}</span> → ', before["state"], before["state"])
            if before.get("state")
            else "",
            format_html('<span class="badge badge-{}">{}</span>', after["state"], after["state"])
            if after.get("state")
            else "",
            format_html('<div class="muted">override: {}</div>', after["justification"])
            if after.get("justification")
            else "",
        ]
        at = timezone.localtime(e.at)  # as `|date` showed it: in the current zone (UTC)
        rows.append(
            format_html(
                _TIMELINE_ROW,
                at_iso=at.isoformat(),
                at_words=at.strftime("%Y-%m-%d %H:%M:%S"),
                actor=e.actor_label,
                action=e.action,
                state=mark_safe("".join(state)),  # noqa: S308  # each part made by format_html
                reason=e.reason,
            )
        )
    return mark_safe("".join(rows))  # noqa: S308  # each row made by format_html
