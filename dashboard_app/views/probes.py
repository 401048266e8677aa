"""The route page's probe button and the endpoints table it refreshes. The button asks for
a probe (the control-plane worker runs it) and answers at once; the table polls itself
while a probe is queued or running, so the page shows the probe when it is done."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts_app.permissions import has_role
from audit_app.actors import actor_from_request
from contracts_app.views.pages import route_or_404
from dashboard_app.selectors.live import endpoint_rows, probes_pending
from kernel.errors import DomainError, error_words
from live_app.selectors import endpoint_get
from live_app.services.probe_requests import endpoint_probe_request


@login_required
@require_POST
def endpoint_probe_ask(request: HttpRequest, slug: str, name: str) -> HttpResponseRedirect:
    if not has_role(request, "operator"):
        raise PermissionDenied("Probing an endpoint needs the operator role or higher.")
    route = route_or_404(slug)
    endpoint = endpoint_get(route, name)
    if endpoint is None:
        raise Http404(f"{slug!r} has no endpoint {name!r}.")
    try:
        endpoint_probe_request(endpoint=endpoint, actor=actor_from_request(request))
    except DomainError as exc:
        messages.error(request, f"Not probed: {error_words(exc)}")
    else:
        messages.success(request, f"Probe of {name} queued; this page shows it when it is done.")
    return redirect(reverse("route-detail", args=[slug]) + "#endpoints")


@login_required
@require_GET
def route_endpoints_table(request: HttpRequest, slug: str) -> HttpResponse:
    route = route_or_404(slug)
    rows = endpoint_rows(route)
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
