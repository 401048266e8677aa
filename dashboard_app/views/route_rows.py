"""The route page's releases and version-history rows, made in Python: 20 rows of five
cells through the template engine (`{% url %}`, two `date` filters and `truncatechars` a
row among them) were a third of the page's template time at the full scale (issue 26,
point 1). The markup is the template's as it was, each value escaped as the template
escaped it (`kernel.markup.fmt`, which is `format_html`); times as `|date` printed them
(`since_words`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

from dashboard_app.selectors.history import VersionRow
from dashboard_app.selectors.overview import since_words
from kernel.markup import fmt, joined
from kernel.urls import url_maker
from releases_app.models import Release

_RELEASE = (
    "\n  <tr>\n"
    '    <td><a href="{href}">#{pk}</a></td>\n'
    "    <td>{baseline} → v{candidate}</td>\n"
    '    <td><span class="badge badge-{state}">{state_words}</span></td>\n'
    "    <td>{gate}</td>\n"
    '    <td><time datetime="{iso}">{minute} UTC</time></td>\n'
    "  </tr>\n  "
)

_VERSION = (
    "\n  <tr>\n"
    '    <td><a href="{href}">v{number}</a>{active}</td>\n'
    "    <td><code>{method}</code></td>\n"
    '    <td class="mono" title="{digest}">{digest_short}</td>\n'
    '    <td><time datetime="{iso}">{minute} UTC</time></td>\n'
    "    <td>{username}</td>\n"
    "  </tr>\n  "
)

_NO_GATE = mark_safe('<span class="muted">—</span>')  # a constant
_ACTIVE = mark_safe(' <span class="badge badge-active">active</span>')  # a constant


def _time(moment: datetime) -> tuple[str, str]:
    """`|date:'c'` and `|date:'Y-m-d H:i'` of a creation time (never null)."""
    words = since_words(moment) or {"iso": "", "minute": ""}
    return words["iso"], words["minute"]


def release_rows(releases: Iterable[Release]) -> SafeString:
    """The `<tr>` of each release, as given (the releases table; its versions' numbers
    joined)."""
    href = url_maker("release-detail")
    rows = []
    for r in releases:
        iso, minute = _time(r.created_at)
        gate = (
            fmt('<span class="badge badge-{}">{}</span>', r.gate_verdict, r.gate_verdict)
            if r.gate_verdict
            else _NO_GATE
        )
        rows.append(
            fmt(
                _RELEASE,
                href=href(r.pk),
                pk=r.pk,
                baseline=f"v{r.baseline_version.number}" if r.baseline_version else "—",
                candidate=r.candidate_version.number,
                state=r.state,
                state_words=r.get_state_display(),
                gate=gate,
                iso=iso,
                minute=minute,
            )
        )
    return joined(rows)


def version_rows(slug: str, versions: Iterable[VersionRow], active_pk: int | None) -> SafeString:
    """The `<tr>` of each version of route `slug`, as given (one page of the history), the
    active one marked."""
    href = url_maker("version-detail", slug)
    rows = []
    for v in versions:
        iso, minute = _time(v.created_at)
        rows.append(
            fmt(
                _VERSION,
                href=href(v.number),
                number=v.number,
                active=_ACTIVE if active_pk is not None and v.pk == active_pk else "",
                method=v.speculation_method,
                digest=v.digest,
                digest_short=Truncator(v.digest).chars(23),
                iso=iso,
                minute=minute,
                username=v.username or "—",
            )
        )
    return joined(rows)
