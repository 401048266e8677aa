"""The fleet view: measured speedups as a lane × route heatmap, with a table that says
the same for screen readers, printouts and browsers without JavaScript."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import visible_routes
from contracts_app.models import Route
from dashboard_app.charts import figure_json, fleet_heatmap
from dashboard_app.rows.fleet import fleet_rows
from dashboard_app.selectors.live import drifted_endpoints
from dashboard_app.selectors.overview import fleet_cells, fleet_history, route_rows
from kernel.urls import url_maker

# Routes per page, the grid's columns: all 500 of the full scale on one page were 1,500
# links and nine figures per route, whatever the reader looked at (issue 26, point 1).
FLEET_PAGE_SIZE = 25


def _fit_labels(figure: dict[str, Any]) -> dict[str, Any]:
    """Lane and route names are free text: let Plotly widen the margins to fit them."""
    for axis in ("xaxis", "yaxis"):
        figure.setdefault("layout", {}).setdefault(axis, {})["automargin"] = True
    return figure


@login_required
def fleet_page(request: HttpRequest) -> HttpResponse:
    routes_seen = visible_routes(request, Route.objects.all())  # the grid of one's own routes
    page = Paginator(routes_seen.order_by("slug"), FLEET_PAGE_SIZE).get_page(request.GET.get("page"))
    # The page's slice as a subquery: its figures are still the selector's one query.
    sliced = cast(QuerySet[Route], page.object_list)
    rows = route_rows(Route.objects.filter(pk__in=sliced.values("pk")), conformance=False)
    cells = fleet_cells(rows)
    routes = sorted({c["route"] for c in cells})
    lanes = sorted({c["lane"] for c in cells})
    # Each link made from its pattern resolved once, not one `{% url %}` per cell.
    route_url, release_url = url_maker("route-detail"), url_maker("release-detail")
    by_pair = {(c["lane"], c["route"]): {**c, "release_url": release_url(c["release_id"])} for c in cells}
    table = [(lane, [by_pair.get((lane, route)) for route in routes]) for lane in lanes]
    history = [
        (row, route_url(row.route.slug), release_url(row.gated_release_id)) for row in fleet_history(rows)
    ]
    context = {
        "cells": cells,
        "routes": [(route, route_url(route)) for route in routes],
        "table": fleet_rows(table),
        "unmeasured": [row.route.slug for row in rows if not row.speedups],
        "history": history,
        "figure": figure_json(_fit_labels(fleet_heatmap(cells))) if cells else None,
        "page": page,
        "live_drift": drifted_endpoints(routes_seen),
        "nav": "fleet",
    }
    return render(request, "dashboard/fleet.html", context)
