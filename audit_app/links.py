"""Where an audit event's object lives in the dashboard, by URL name (so the audit app
imports nothing from the apps that own those pages). None when the object has no page."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.urls import NoReverseMatch, reverse

from kernel.urls import url_maker

_VERSION = re.compile(r"^(?P<slug>[^:]+):v(?P<number>\d+)$")


def object_url(object_type: str, object_id: str, route: str = "") -> str | None:
    """`route`: the event's route (an endpoint's page is its route's)."""
    try:
        if object_type == "release" and object_id.isdigit():
            return reverse("release-detail", args=[int(object_id)])
        if object_type == "run" and object_id.isdigit():
            return reverse("run-detail", args=[int(object_id)])
        if object_type == "route":
            return reverse("route-detail", args=[object_id])
        if object_type == "contract_version" and (m := _VERSION.match(object_id)):
            return reverse("version-detail", args=[m["slug"], int(m["number"])])
        if object_type == "worker" and object_id.isdigit():
            return reverse("workers") + f"#worker-{object_id}"
        if object_type == "workload" and object_id.isdigit():
            return reverse("workload-by-id", args=[int(object_id)])
        if object_type in ("webhook", "webhook_delivery"):
            return reverse("webhook-deliveries")
        if object_type == "endpoint" and route:
            return reverse("route-detail", args=[route]) + "#endpoints"
    except NoReverseMatch:
        return None
    return None


def object_linker() -> Callable[[str, str, str], str | None]:
    """`object_url` for a page of events: the one-argument paths resolved once
    (`kernel.urls.url_maker`) rather than one `reverse` per event; the rest as
    `object_url` makes them."""
    release, run, route = url_maker("release-detail"), url_maker("run-detail"), url_maker("route-detail")

    def link(object_type: str, object_id: str, route_slug: str = "") -> str | None:
        if object_type == "release" and object_id.isdigit():
            return release(int(object_id))
        if object_type == "run" and object_id.isdigit():
            return run(int(object_id))
        if object_type == "route":
            return route(object_id)
        return object_url(object_type, object_id, route_slug)

    return link
