"""The one write that changes which contract version a route serves."""

from __future__ import annotations

from django.utils import timezone

from contracts_app.models import ContractVersion, Route


def route_activate(*, route: Route, version: ContractVersion) -> int | None:
    """Make `version` the route's active version; returns the number that was active.

    Only releases call this (an approval's activation or a rollback), inside their own
    transaction and with the route row already locked (`select_for_update`), which is what
    keeps a route at exactly one active version under concurrent decisions; the release's
    transition writes the audit event that says why."""
    previous = route.active_version.number if route.active_version else None
    route.active_version = version
    route.active_since = timezone.now()
    route.save(update_fields=["active_version", "active_since"])
    return previous
