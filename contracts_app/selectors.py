"""Reads for routes and versions: querysets and lookups that raise NotFound in words."""

from __future__ import annotations

from django.db.models import QuerySet, TextField, Value
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Coalesce

from contracts_app.models import ContractVersion, Route
from kernel.errors import NotFound
from kernel.fixed_read import FixedRead


def route_list() -> QuerySet[Route]:
    # No per-route aggregates over the versions: nothing reads them, and a Count/Max over every
    # version (twice, with the pager's COUNT) cost 53 ms of SQL per request at the generator's
    # full scale against 3 ms on the small one (issue 26, profile item 4).
    return Route.objects.with_active_version().order_by("slug")


# Every route page and route API call starts here: compiled once (issue 26, point 1).
_ROUTE_NAMED = FixedRead(
    lambda slug: Route.objects.with_active_version().filter(slug=slug).order_by("pk")[:1], slug=str
)


def route_get(slug: str) -> Route:
    found = _ROUTE_NAMED(slug=slug)
    if not found:
        raise NotFound(f"No route named {slug!r}.")
    route: Route = found[0]
    return route


def version_list(route: Route) -> QuerySet[ContractVersion]:
    return ContractVersion.objects.filter(route=route).select_related("created_by").order_by("-number")


def speculation_method_sql(to_version: str = "") -> Coalesce:
    """`ContractVersion.speculation_method` read in SQL (the document's speculation.method),
    for reads that show the method without decoding the whole document; `to_version` is the
    path from the queried model to the version, as `"baseline_version__"`."""
    # KT("a__document__b") would read the foreign key `a` as the JSON column: spelled out.
    method = KeyTextTransform("method", KeyTransform("speculation", f"{to_version}document"))
    return Coalesce(method, Value("none"), output_field=TextField())


def version_get(route: Route, number: int) -> ContractVersion:
    version = ContractVersion.objects.filter(route=route, number=number).select_related("created_by").first()
    if version is None:
        raise NotFound(f"Route {route.slug!r} has no version {number}.")
    return version
