"""What a route's header says it is: the description of the version that runs now.

The route row's own `description` is written once, from the first upload (or given when
the route is created), and stays as it was while later versions go live: shown as the
route's description it told readers v1's story while v2 was active. So the pages read
the active version's `description`, and say whose words they are."""

from __future__ import annotations

from contracts_app.models import Route


def route_description(route: Route) -> str:
    """`route` with its active version joined (no query)."""
    version = route.active_version
    if version is None:
        created = f" Described at creation as: “{route.description}”" if route.description else ""
        return f"No version of this route is active yet.{created}"
    text = str((version.document or {}).get("description") or "").strip()
    if not text:
        return f"Version {version.number}, the active one, carries no description."
    return text
