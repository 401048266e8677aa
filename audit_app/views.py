from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import routes_in_scope
from audit_app.checkpoints import describe, verify_audit
from audit_app.forms import AuditFilterForm
from audit_app.selectors import audit_events


@login_required
def audit_page(request: HttpRequest) -> HttpResponse:
    """The audit log with filters, and the chain's status held to its signed checkpoints
    (walked on every load: it reads every event, which is fine for years of releases but
    not for millions of events)."""
    form = AuditFilterForm(request.GET or None)
    filters: dict[str, str] = {}
    events = audit_events(routes_in_scope=routes_in_scope(request))
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        events = audit_events(
            action=data["action"],
            route=data["route"],
            actor=data["actor"],
            obj=data["object"],
            since=data["since"],
            until=data["until"],
            routes_in_scope=routes_in_scope(request),
        )
        filters = {k: str(v) for k, v in request.GET.items() if k != "page" and v}
    page = Paginator(events, 100).get_page(request.GET.get("page"))
    chain = verify_audit()
    return render(
        request,
        "audit/audit_log.html",
        {
            "form": form if form.is_bound else AuditFilterForm(),
            "page": page,
            "chain": chain,
            "chain_words": describe(chain),
            "query": urlencode(filters),
            "nav": "audit",
        },
    )
