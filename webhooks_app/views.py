"""The deliveries page (admins): subscriptions, their latest deliveries, redeliver."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts_app.permissions import has_role, routes_in_scope
from audit_app.actors import actor_from_request
from audit_app.links import object_url
from kernel.errors import DomainError
from webhooks_app.selectors import delivery_list, subscription_list
from webhooks_app.services import delivery_redeliver


def _admin_only(request: HttpRequest) -> None:
    if not has_role(request, "admin"):
        raise PermissionDenied("Webhooks are for admins.")


@login_required
def deliveries_page(request: HttpRequest) -> HttpResponse:
    _admin_only(request)
    # An admin limited to some routes sees their subscriptions and deliveries only, as the API.
    scope = routes_in_scope(request)
    page = Paginator(delivery_list(routes_in_scope=scope), 50).get_page(request.GET.get("page"))
    # Each delivery with what its event is about ("release:3") and that object's page.
    rows = [
        (d, ":".join(subject) if subject else "", object_url(*subject, d.route) if subject else None)
        for d in page.object_list
        for subject in [d.subject]
    ]
    context = {
        "subscriptions": subscription_list(routes_in_scope=scope),
        "page": page,
        "rows": rows,
        "nav": "webhooks",
    }
    return render(request, "webhooks/deliveries.html", context)


@login_required
@require_POST
def redeliver_page(request: HttpRequest, delivery_id: int) -> HttpResponse:
    _admin_only(request)
    try:
        delivery = delivery_redeliver(delivery_id=delivery_id, actor=actor_from_request(request))
        messages.success(request, f"Delivery #{delivery.pk} ({delivery.event}) will be sent again.")
    except DomainError as exc:
        messages.error(request, exc.detail)
    return HttpResponseRedirect(reverse("webhook-deliveries"))
