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


def coverage_of(endpoint: Endpoint) -> str:
    """The last probe's coverage words; its reason where it has none (an unknown probe that
    could not start, e.g. auth unavailable, or one stored before coverage was kept)."""
    probe = endpoint.last_probe
    if probe is None:
        return NOT_PROBED
    if probe.coverage:
        return probe.coverage
    return probe.reason[:REASON_CHARS] if probe.reason else ""


def conformance_of(endpoint: Endpoint) -> Conformance:
    return Conformance(endpoint.name, endpoint.state, coverage_of(endpoint))


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
