"""The routes overview and a route's page: the active contract, its history, its releases
and the six checklist answers."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe

from accounts_app.permissions import has_role, visible_routes
from advice_app.selectors import advice_staleness
from contracts_app.document.schema import KNOWN_LANES
from contracts_app.models import Route
from contracts_app.views.pages import route_or_404
from dashboard_app.filters import OverviewFilterSet
from dashboard_app.rows.overview import overview_rows
from dashboard_app.selectors.archived import archived_engine
from dashboard_app.selectors.checklist import route_checklist
from dashboard_app.selectors.description import route_description
from dashboard_app.selectors.history import version_history
from dashboard_app.selectors.live import drifted_endpoints, endpoint_rows, probes_pending
from dashboard_app.selectors.overview import route_rows
from dashboard_app.views.route_rows import release_rows, version_rows
from kernel.filtersets import page_filter_query, page_queryset
from releases_app.models import Release

# Routes per overview page: 500 routes on one page were 445 KB of HTML, 75% of it
# template time (issue 16).
OVERVIEW_PAGE_SIZE = 50


@login_required
def routes_overview(request: HttpRequest) -> HttpResponse:
    # Someone limited to some routes sees those only: in the rows, the counts, the pages.
    filterset = OverviewFilterSet(request.GET or None, queryset=visible_routes(request, Route.objects.all()))
    routes = page_queryset(filterset).order_by("slug")
    page = Paginator(routes, OVERVIEW_PAGE_SIZE).get_page(request.GET.get("page"))
    # The page's slice as a subquery: its rows are still the selector's one query.
    sliced = cast(QuerySet[Route], page.object_list)
    rows = route_rows(Route.objects.filter(pk__in=sliced.values("pk")))
    filtered = filterset.is_valid() and any(filterset.form.cleaned_data.values())
    return render(
        request,
        "dashboard/routes_overview.html",
        {
            "rows": overview_rows(rows),
            "page": page,
            "query": page_filter_query(request, filterset),
            "form": filterset.form,
            "known_lanes": KNOWN_LANES,
            "filtered": filtered,
            "live_drift": drifted_endpoints(visible_routes(request, Route.objects.all())),
            "nav": "routes",
        },
    )


def _version_options(numbers: list[str], selected: int) -> SafeString:
    """The diff picker's `<option>`s, every version: built here, not in a template loop,
    where 250 options (126 versions, two pickers) were a third of the page's variable
    renders."""
    # The numbers are `str(int)`: nothing in them to escape, so no `format_html` per option.
    options = [f'<option value="{n}">v{n}</option>' for n in numbers]
    if 0 <= selected < len(options):
        n = numbers[selected]
        options[selected] = f'<option value="{n}" selected>v{n}</option>'
    return mark_safe("".join(options))  # noqa: S308  # digits only


_RELEASE_ROW = (
    "id",
    "route",
    "state",
    "gate_verdict",
    "created_at",
    "baseline_version",
    "baseline_version__number",
    "candidate_version",
    "candidate_version__number",
)


@login_required
def route_detail(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(request, slug)
    history = version_history(route, request.GET.get("page"))
    # The table shows two version numbers, the state, the verdict and the time of each
    # release: their documents, gate results and diffs stay unread.
    releases = list(
        Release.objects.filter(route=route)
        .select_related("baseline_version", "candidate_version")
        .only(*_RELEASE_ROW)[:10]
    )
    rows = endpoint_rows(route)
    can_author = has_role(request, "operator")
    return render(
        request,
        "dashboard/route_detail.html",
        {
            "route": route,
            # One page of the history (its rows and their "Propose vN" forms); the diff
            # picker offers every version.
            "history": history,
            "options_from": _version_options(history.numbers, 1),
            "options_to": _version_options(history.numbers, 0),
            "versions": history.page.object_list,
            "active": route.active_version,
            "description": route_description(route),
            "checklist": route_checklist(route, [row.endpoint for row in rows], history.rows),
            "archived": archived_engine(route),
            "releases": releases,
            "release_rows": release_rows(releases),
            "version_rows": version_rows(route.slug, history.page.object_list, route.active_version_id),
            "endpoint_rows": rows,
            "probes_pending": probes_pending(rows),
            "can_probe": bool(rows) and can_author,
            # Authoring (dashboard/_route_authoring.html): upload, edit, propose a version.
            "can_author": can_author,
            # Its number and state only (the authoring card's note).
            "open_release": Release.objects.open().filter(route=route).only("id", "state").first()
            if can_author
            else None,
            # The latest finished advice, and why it no longer holds (one query).
            "advice": advice_staleness(route),
            "nav": "routes",
        },
    )
