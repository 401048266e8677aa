"""The fleet view: measured speedups as a lane × route heatmap, with a table that says
the same for screen readers, printouts and browsers without JavaScript."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import visible_routes
from contracts_app.models import Route
from dashboard_app.charts import figure_json, fleet_heatmap
from dashboard_app.selectors.live import drifted_endpoints
from dashboard_app.selectors.overview import fleet_cells, fleet_history, route_rows
from kernel.urls import url_maker


def _fit_labels(figure: dict[str, Any]) -> dict[str, Any]:
    """Lane and route names are free text: let Plotly widen the margins to fit them."""
    for axis in ("xaxis", "yaxis"):
        figure.setdefault("layout", {}).setdefault(axis, {})["automargin"] = True
    return figure


@login_required
def fleet_page(request: HttpRequest) -> HttpResponse:
    routes_seen = visible_routes(request, Route.objects.all())  # the grid of one's own routes
    rows = route_rows(routes_seen, conformance=False)
    cells = fleet_cells(rows)
    routes = sorted({c["route"] for c in cells})
    lanes = sorted({c["lane"] for c in cells})
    # Each link made from its pattern resolved once, not one `{% url %}` per cell.
    route_url, release_url = url_maker("route-detail"), url_maker("release-detail")
    by_pair = {(c["lane"], c["route"]): {**c, "release_url": release_url(c["release_id"])} for c in cells}
    table = [(lane, [by_pair.get((lane, route)) for route in routes]) for lane in lanes]
    context = {
        "cells": cells,
        "routes": [(route, route_url(route)) for route in routes],
        "table": table,
        "unmeasured": [row.route.slug for row in rows if not row.speedups],
        "history": fleet_history(rows),
        "figure": figure_json(_fit_labels(fleet_heatmap(cells))) if cells else None,
        "live_drift": drifted_endpoints(routes_seen),
        "nav": "fleet",
    }
    return render(request, "dashboard/fleet.html", context)
