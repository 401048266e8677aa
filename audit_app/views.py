from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import routes_in_scope
from audit_app.checkpoints import describe, verify_audit
from audit_app.filtersets import AuditEventFilterSet
from audit_app.links import object_url
from audit_app.selectors import audit_events
from specpact.filtersets import page_filter_query, page_queryset


@login_required
def audit_page(request: HttpRequest) -> HttpResponse:
    """The audit log with filters, and the chain's status held to its signed checkpoints
    (walked on every load: it reads every event, which is fine for years of releases but
    not for millions of events)."""
    filterset = AuditEventFilterSet(
        request.GET or None, queryset=audit_events(routes_in_scope=routes_in_scope(request))
    )
    page = Paginator(page_queryset(filterset), 100).get_page(request.GET.get("page"))
    for event in page.object_list:
        event.link = object_url(event.object_type, str(event.object_id))
    chain = verify_audit()
    return render(
        request,
        "audit/audit_log.html",
        {
            "form": filterset.form,
            "page": page,
            "chain": chain,
            "chain_words": describe(chain),
            "query": page_filter_query(request, filterset),
            "nav": "audit",
        },
    )
