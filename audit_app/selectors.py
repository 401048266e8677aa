from __future__ import annotations

from typing import cast

from django.db import models

from audit_app.checkpoints import AuditStatus
from audit_app.models import AuditEvent, AuditEventQuerySet


def audit_events(*, routes_in_scope: list[str] | None = None) -> AuditEventQuerySet:
    """Newest first; `routes_in_scope` (a scoped token's routes) hides the rest. The
    query's filters are `audit_app.filtersets.AuditEventFilterSet`."""
    qs = AuditEvent.objects.select_related("actor").order_by("-id")
    if routes_in_scope is not None:
        qs = qs.filter(route__in=routes_in_scope)
    return qs


def status_for_scope(status: AuditStatus, routes_in_scope: list[str] | None) -> AuditStatus:
    """A route-scoped token is told how many events of its own routes the answer covers
    (`events`, and `checked.walked` of those hashed now), not the whole chain's size: the
    trail's other routes are none of its business (it can't list them either)."""
    if routes_in_scope is None:
        return status
    checked = status["checked"]
    through = (
        checked["full_through"]
        if checked["scope"] == "full"
        else checked["walked_from"] + checked["walked"] - 1
    )
    mine = AuditEvent.objects.filter(route__in=routes_in_scope, id__lte=through)
    counted = mine.aggregate(
        events=models.Count("id"), walked=models.Count("id", filter=models.Q(id__gte=checked["walked_from"]))
    )
    return cast(
        AuditStatus,
        {**status, "events": counted["events"], "checked": {**checked, "walked": counted["walked"]}},
    )
