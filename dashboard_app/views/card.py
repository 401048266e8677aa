"""The route card a technical buyer takes away: the active contract and the six checklist
answers with their evidence, as a printable page (print CSS) and as Markdown."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from contracts_app.models import Route
from contracts_app.views.pages import route_or_404
from dashboard_app.selectors.checklist import Checklist, route_checklist
from dashboard_app.selectors.conformance import conformance_lines
from dashboard_app.selectors.description import route_description
from dashboard_app.selectors.overview import RouteRow, route_rows


def _row(route: Route) -> RouteRow | None:
    """The route's overview row: the speedup of what is active now, and history as such."""
    rows = route_rows(Route.objects.filter(pk=route.pk))
    return rows[0] if rows else None


def speedup_lines(row: RouteRow | None) -> list[str]:
    """The card's speedup facts in words: what runs now, then history labelled as history."""
    if row is None or row.route.active_version is None:
        return []
    version = row.route.active_version.number
    since = f", active since {row.route.active_since:%Y-%m-%d}" if row.route.active_since else ""
    if row.speedups:
        now = ", ".join(f"{s.words} ({s.lane}, {s.metric} at {s.level_words})" for s in row.speedups)
        lines = [f"Measured speedup of version {version}: {now}, release #{row.current_release_id}{since}"]
    else:
        lines = [f"No measured speedup for version {version}, which runs now{since}"]
    if row.history_speedups:
        kind = "History" if row.verdict_is_history else "Candidate, not active"
        then = ", ".join(f"{s.words} ({s.lane})" for s in row.history_speedups)
        lines.append(f"{kind}: {then} in release #{row.gated_release_id}, {row.gated_release_state_words}")
    return lines


@login_required
def route_card(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(request, slug)
    row = _row(route)
    context = {
        "route": route,
        "active": route.active_version,
        "description": route_description(route),
        "speedups": speedup_lines(row),
        "conformance": row.conformance if row else [],
        "checklist": route_checklist(route),
        "generated_at": timezone.now(),
        "nav": "routes",
    }
    return render(request, "dashboard/route_card.html", context)


@login_required
def route_card_markdown(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(request, slug)
    row = _row(route)
    text = card_markdown(
        route,
        route_checklist(route),
        base=request.build_absolute_uri("/").rstrip("/"),
        speedups=[*speedup_lines(row), *conformance_lines(row.conformance if row else [])],
    )
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{route.slug}-route-card.md"'
    return response


def _md(text: str) -> str:
    """Plain text safe in Markdown prose: characters that would start markup escaped
    (contract fields are free text written by others). Backticks from the answers stay."""
    return "".join("\\" + c if c in "\\*_[]<>#|" else c for c in text)


def card_markdown(route: Route, checklist: Checklist, *, base: str, speedups: list[str] | None = None) -> str:
    active = getattr(route, "active_version", None)
    lines = [f"# Route card: {route}", ""]
    lines += [_md(route_description(route)), ""]
    if active is not None:
        target = active.document.get("target") or {}
        engine = f"{target.get('engine')} {target.get('engine_version') or ''}".rstrip()
        lines += [
            f"- Active contract: version {active.number}, digest `{active.digest}`",
            f"- Target: `{target.get('model')}` on {engine}",
            f"- Speculation: `{active.speculation_method}`",
            *(f"- {_md(line)}" for line in speedups or []),
        ]
    else:
        lines.append("- Active contract: none yet")
    lines += [
        f"- Generated: {timezone.now().strftime('%Y-%m-%d %H:%M UTC')} from {base}",
        "",
        "## Checklist",
        "",
    ]
    for number, answer in enumerate(checklist.answers, start=1):
        lines += [
            f"### {number}. {answer.question}",
            "",
            f"**{answer.status_words}.** {_md(answer.answer)}",
            "",
        ]
        for e in answer.evidence:
            lines.append(f"- {_md(e.label)}: <{base}{e.url}>")
        if answer.evidence:
            lines.append("")
    return "\n".join(lines)
