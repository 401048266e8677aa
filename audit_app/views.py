from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts_app.permissions import routes_in_scope
from audit_app import rows
from audit_app.checkpoints import checkpoint_words, describe
from audit_app.filtersets import AuditEventFilterSet
from audit_app.models import AuditEvent
from audit_app.selectors import audit_events, status_for_scope
from audit_app.verification import audit_status
from kernel.filtersets import page_filter_query, page_queryset


@login_required
def audit_page(request: HttpRequest) -> HttpResponse:
    """The audit log with filters, and the chain's status held to its signed checkpoints:
    the events since the last verified one hashed now, the rest by the last full walk
    (audit_app/verification.py); the page says which and when."""
    scope = routes_in_scope(request)
    filterset = AuditEventFilterSet(request.GET or None, queryset=audit_events(routes_in_scope=scope))
    # The columns the table shows, as tuples (audit_app/rows.py): not the events'
    # before/after documents, nor their actors' user rows (the table shows the label
    # each event keeps).
    shown = rows.shown(page_queryset(filterset).select_related(None))
    paginator = Paginator(shown, 100)
    query = page_filter_query(request, filterset)
    if scope is None and not query:
        # The whole trail: ids have no gaps (audit_record assigns last + 1 under the chain
        # lock), so the newest id is the count, read off the primary key instead of
        # counting every row (100,000 of them in issue 16's data).
        paginator.count = AuditEvent.objects.aggregate(n=Max("id"))["n"] or 0
    page = paginator.get_page(request.GET.get("page"))
    chain = status_for_scope(audit_status(), scope)
    table = rows.event_rows(page.object_list, first_broken=chain.get("first_broken"))
    return render(
        request,
        "audit/audit_log.html",
        {
            "form": filterset.form,
            "page": page,
            "rows": table,
            "chain": chain,
            "chain_words": describe(chain),
            "checkpoint_words": checkpoint_words(chain),
            "query": query,
            "nav": "audit",
        },
    )
