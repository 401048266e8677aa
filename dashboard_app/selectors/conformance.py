"""Conformance as the overview, the route card and the endpoints table show it: per live
endpoint, its state and its coverage in the probe's own words ("3 of 4 fields verified;
llama.cpp b11434 does not report speculation.params.prompt_lookup_max"), or why it is
unknown ("not reached: …"). The words are the stored probe's (live_app/conformance/coverage.py);
nothing here judges anew."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch

from live_app.models import Endpoint

NOT_PROBED = "not probed yet"
REASON_CHARS = 300


@dataclass(frozen=True)
class Conformance:
    name: str
    state: str  # conforms | drifted | unknown
    words: str  # the coverage, or why there is none


def coverage_words(probed: bool, coverage: str | None, reason: str | None) -> str:
    """The last probe's coverage words; its reason where it has none (an unknown probe that
    could not start, e.g. auth unavailable, or one stored before coverage was kept)."""
    if not probed:
        return NOT_PROBED
    if coverage:
        return coverage
    return reason[:REASON_CHARS] if reason else ""


def coverage_of(endpoint: Endpoint) -> str:
    probe = endpoint.last_probe
    if probe is None:
        return coverage_words(False, None, None)
    return coverage_words(True, probe.coverage, probe.reason)


def conformance_of(endpoint: Endpoint) -> Conformance:
    return Conformance(endpoint.name, endpoint.state, coverage_of(endpoint))


# `live_endpoints_prefetch` for PostgreSQL, as one more JSON column of the routes' own
# query (`dashboard_app.selectors.overview`): the prefetch was a second query whose
# compilation and instances cost a millisecond a page for usually a few endpoints
# (issue 26, point 1). Same endpoints, same order (PostgreSQL sorts the names both ways).
ENDPOINTS_JSON_SQL = """(
    SELECT coalesce(jsonb_agg(jsonb_build_object(
        'name', e.name, 'state', e.state, 'probed', p.id IS NOT NULL,
        'coverage', p.coverage, 'reason', p.reason
    ) ORDER BY e.name), '[]'::jsonb)
    FROM live_app_endpoint e LEFT JOIN live_app_probe p ON p.id = e.last_probe_id
    WHERE e.route_id = "contracts_app_route"."id"
)"""


def conformance_of_json(items: list[dict[str, Any]]) -> list[Conformance]:
    """The endpoints of `ENDPOINTS_JSON_SQL` as `conformance_of` words them."""
    return [
        Conformance(i["name"], i["state"], coverage_words(i["probed"], i["coverage"], i["reason"]))
        for i in items
    ]


def live_endpoints_prefetch() -> Prefetch[Any]:
    """The routes' endpoints with their last probe, in one query for all the routes read."""
    return Prefetch(
        "endpoints",
        queryset=Endpoint.objects.select_related("last_probe").order_by("name"),
        to_attr="live_endpoints",
    )


def conformance_lines(conformance: list[Conformance]) -> list[str]:
    """The route card's lines, one per endpoint: "prod-eu conforms: 3 of 4 fields verified; …"."""
    return [f"Live endpoint {c.name} {c.state}" + (f": {c.words}" if c.words else "") for c in conformance]
