"""The route page's probe button: asks for a probe (the control-plane worker runs it) and
answers at once; the page's endpoints table (dashboard_app) refreshes itself while the
probe is queued or running, so the page shows it when it is done. Thin: one service, a
message, a redirect; a DomainError (the broker down) becomes the message, never a 500."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts_app.permissions import has_role
from audit_app.actors import actor_from_request
from contracts_app.views.pages import route_or_404
from kernel.errors import DomainError, error_words
from live_app.selectors import endpoint_get
from live_app.services.probe_requests import endpoint_probe_request


@login_required
@require_POST
def endpoint_probe_ask(request: HttpRequest, slug: str, name: str) -> HttpResponseRedirect:
    if not has_role(request, "operator"):
        raise PermissionDenied("Probing an endpoint needs the operator role or higher.")
    route = route_or_404(request, slug)
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
