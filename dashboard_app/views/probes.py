"""The route page's endpoints table on its own, which the page refreshes (htmx) while a
probe someone asked for (live_app/views.py, the probe button) is queued or running."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts_app.permissions import has_role
from contracts_app.views.pages import route_or_404
from dashboard_app.selectors.live import endpoint_rows, probes_pending


@login_required
@require_GET
def route_endpoints_table(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(request, slug)
    rows = endpoint_rows(route, charts=False)  # the table draws no charts
    return render(
        request,
        "dashboard/_endpoints_table.html",
        {
            "route": route,
            "endpoint_rows": rows,
            "probes_pending": probes_pending(rows),
            "can_probe": has_role(request, "operator"),
        },
    )
