"""Where an audit event's object lives in the dashboard, by URL name (so the audit app
imports nothing from the apps that own those pages). None when the object has no page."""

from __future__ import annotations

import re

from django.urls import NoReverseMatch, reverse

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
