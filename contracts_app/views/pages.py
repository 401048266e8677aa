"""A contract version's page and the diff of two versions: pages that read contracts only
(pages that read across domains, such as the route page, are dashboard_app's)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import can_access_route, has_role
from contracts_app import selectors
from contracts_app.document import ENGINES, diff_documents, highest_impact, validate_document
from contracts_app.document import render as render_engine
from contracts_app.views.diff_table import side_by_side
from kernel.errors import NotFound

# Document sections in the order the version page shows them; each has an anchor
# (`#field-<section>`) the checklist's evidence links point at.
SECTIONS = ("target", "speculation", "assets", "compatibility", "lanes", "measurement", "rollback")


def route_or_404(request: HttpRequest, slug: str) -> Any:
    """The route a page's URL names, if the person may see it: a route outside their
    scope is a 404 worded as a missing one (it must not tell that it exists)."""
    if not can_access_route(request, slug):
        raise Http404(f"No route {slug!r}.")
    try:
        return selectors.route_get(slug)
    except NotFound as exc:
        raise Http404(exc.detail) from None


@login_required
def version_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    route = route_or_404(request, slug)
    try:
        version = selectors.version_get(route, number)
    except NotFound as exc:
        raise Http404(exc.detail) from None
    contract = validate_document(version.document)
    renders = [render_engine(contract, engine) for engine in _renderable(contract)]
    sections = [(name, _pretty(version.document.get(name))) for name in SECTIONS if name in version.document]
    return render(
        request,
        "contracts/version_detail.html",
        {
            "route": route,
            "version": version,
            "renders": renders,
            "sections": sections,
            "active_diff": _diff_from_active(route, version),
            "can_author": has_role(request, "operator"),
            "nav": "routes",
        },
    )


def _diff_from_active(route: Any, version: Any) -> dict[str, Any] | None:
    """This version against the route's active one (None when it is the active one, or
    none is active): what proposing it would change."""
    active = route.active_version
    if active is None or active.pk == version.pk:
        return None
    changes = diff_documents(active.document, version.document)
    return {"active": active, "rows": side_by_side(changes), "highest": highest_impact(changes)}


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def _renderable(contract: Any) -> list[str]:
    """The route's own engine; other engines only where they accept the same method."""
    from contracts_app.document import ContractError

    engines = []
    for engine in ENGINES:
        try:
            render_engine(contract, engine)
        except ContractError:
            continue
        engines.append(engine)
    own = contract.target.engine
    return [own] + [e for e in engines if e != own]


@login_required
def diff_page(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(request, slug)
    versions = list(selectors.version_list(route))
    context: dict[str, Any] = {"route": route, "versions": versions, "nav": "routes"}
    try:
        old_n = int(request.GET.get("from", ""))
        new_n = int(request.GET.get("to", ""))
    except ValueError:
        context["error"] = "Pick two versions to compare." if versions else None
        return render(request, "contracts/diff.html", context)
    by_number = {v.number: v for v in versions}
    if old_n not in by_number or new_n not in by_number:
        context["error"] = "One of those versions does not exist on this route."
        return render(request, "contracts/diff.html", context, status=404)
    old, new = by_number[old_n], by_number[new_n]
    changes = diff_documents(old.document, new.document)
    context.update(
        old=old,
        new=new,
        changes=changes,
        highest=highest_impact(changes),
        rows=side_by_side(changes),
    )
    return render(request, "contracts/diff.html", context)
