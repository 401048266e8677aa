from __future__ import annotations

from datetime import datetime

from django.db.models import Q

from audit_app.models import AuditEvent, AuditEventQuerySet


def audit_events(
    *,
    action: str = "",
    route: str = "",
    actor: str = "",
    obj: str = "",
    since: datetime | None = None,
    until: datetime | None = None,
    routes_in_scope: list[str] | None = None,
) -> AuditEventQuerySet:
    """Newest first. `action` matches a dotted prefix too (`release` → `release.*`);
    `actor` is a label (`user:alice`, `token:ab12cd34`) or a bare username; `obj` is
    `type:id` or just a type. `routes_in_scope` (a scoped token's routes) hides the rest."""
    qs = AuditEvent.objects.select_related("actor").order_by("-id")
    if action:
        qs = qs.filter(Q(action=action) | Q(action__startswith=f"{action}."))
    if route:
        qs = qs.filter(route=route)
    if actor:
        qs = qs.filter(Q(actor_label=actor) | Q(actor_label=f"user:{actor}") | Q(actor__username=actor))
    if obj:
        obj_type, _, obj_id = obj.partition(":")
        qs = qs.filter(object_type=obj_type)
        if obj_id:
            qs = qs.filter(object_id=obj_id)
    if since is not None:
        qs = qs.filter(at__gte=since)
    if until is not None:
        qs = qs.filter(at__lt=until)
    if routes_in_scope is not None:
        qs = qs.filter(route__in=routes_in_scope)
    return qs
