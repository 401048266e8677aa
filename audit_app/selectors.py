from __future__ import annotations

from audit_app.models import AuditEvent, AuditEventQuerySet


def audit_events(*, routes_in_scope: list[str] | None = None) -> AuditEventQuerySet:
    """Newest first; `routes_in_scope` (a scoped token's routes) hides the rest. The
    query's filters are `audit_app.filtersets.AuditEventFilterSet`."""
    qs = AuditEvent.objects.select_related("actor").order_by("-id")
    if routes_in_scope is not None:
        qs = qs.filter(route__in=routes_in_scope)
    return qs
