"""The route card a technical buyer takes away: the active contract and the six checklist
answers with their evidence, as a printable page (print CSS) and as Markdown."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from contracts_app.views.pages import route_or_404
from dashboard_app.selectors.checklist import Checklist, route_checklist


@login_required
def route_card(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(slug)
    context = {
        "route": route,
        "active": route.active_version,
        "checklist": route_checklist(route),
        "generated_at": timezone.now(),
        "nav": "routes",
    }
    return render(request, "dashboard/route_card.html", context)


@login_required
def route_card_markdown(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(slug)
    text = card_markdown(route, route_checklist(route), base=request.build_absolute_uri("/").rstrip("/"))
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{route.slug}-route-card.md"'
    return response


def _md(text: str) -> str:
    """Plain text safe in Markdown prose: characters that would start markup escaped
    (contract fields are free text written by others). Backticks from the answers stay."""
    return "".join("\\" + c if c in "\\*_[]<>#|" else c for c in text)


def card_markdown(route: object, checklist: Checklist, *, base: str) -> str:
    active = getattr(route, "active_version", None)
    lines = [f"# Route card: {route}", ""]
    description = getattr(route, "description", "") or (active.document.get("description") if active else "")
    if description:
        lines += [_md(str(description)), ""]
    if active is not None:
        target = active.document.get("target") or {}
        engine = f"{target.get('engine')} {target.get('engine_version') or ''}".rstrip()
        lines += [
            f"- Active contract: version {active.number}, digest `{active.digest}`",
            f"- Target: `{target.get('model')}` on {engine}",
            f"- Speculation: `{active.speculation_method}`",
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
