"""Edits to a route's own fields (its description). Its active version changes only
through a release (services/activation.py)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts_app.permissions import ensure_route_access
from audit_app.actors import as_actor
from audit_app.services import audit_record
from contracts_app.models import Route
from kernel.api.etags import check_if_match
from kernel.errors import NotFound
from kernel.text import DESCRIPTION_MAX, checked_text


def route_update(*, slug: str, description: str, actor: Any, if_match: list[str] | None = None) -> Route:
    """Set the description; `if_match` (the client's ETags) must name the route's current
    one or nothing is written (412). An unchanged description writes nothing and audits
    nothing."""
    who = as_actor(actor)
    description = checked_text(description, field="description", max_length=DESCRIPTION_MAX)
    with transaction.atomic():
        route = Route.objects.select_for_update().filter(slug=slug).first()
        if route is None:
            raise NotFound(f"No route {slug!r}.")
        ensure_route_access(who, route)
        check_if_match(if_match, route.etag, f"Route {slug}")
        if route.description == description:
            return route
        before = route.description
        route.description = description
        route.save(update_fields=["description"])
        audit_record(
            actor=who,
            action="route.updated",
            obj_type="route",
            obj_id=route.slug,
            route=route,
            before={"description": before},
            after={"description": description},
        )
    return route
