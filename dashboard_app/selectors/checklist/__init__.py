"""The six checklist questions of a route (DESIGN §6), answered in plain words from its
active contract and the evidence behind it: contract fields, benchmark runs, audit events.

One selector for the route page, the printable card, its Markdown export and
`GET /api/v1/routes/{slug}/checklist`, so the four never disagree. A fixed number of
queries whatever the route's history: the active version comes with the route, then one
query each for the release that activated it, its approval, the runs that measured it and
the route's endpoints; one more for the proposal's reason when the benchmark was skipped,
a `version:N` rollback target, or the benchmarked acceptance a live trigger is held to.
"""

from __future__ import annotations

from collections.abc import Sequence

from contracts_app.models import Route
from dashboard_app.selectors.checklist.answers import (
    EVIDENCE_KINDS,
    QUESTIONS,
    STATUS_WORDS,
    Answer,
    Checklist,
    Evidence,
    audit_url,
)
from dashboard_app.selectors.checklist.contract import q2_dependencies, q3_compatibility, q4_lanes
from dashboard_app.selectors.checklist.history import activating_release, q1_method
from dashboard_app.selectors.checklist.live import with_live
from dashboard_app.selectors.checklist.measured import MeasuredLane, measured_lanes, q5_measured
from dashboard_app.selectors.checklist.rollback import q6_rollback
from dashboard_app.selectors.history import VersionRow
from live_app.models import Endpoint
from live_app.selectors import endpoints_of

__all__ = [
    "EVIDENCE_KINDS",
    "QUESTIONS",
    "STATUS_WORDS",
    "Answer",
    "Checklist",
    "Evidence",
    "MeasuredLane",
    "audit_url",
    "measured_lanes",
    "route_checklist",
]


def route_checklist(
    route: Route, endpoints: list[Endpoint] | None = None, versions: Sequence[VersionRow] | None = None
) -> Checklist:
    """`route` as `contracts_app.selectors.route_get` returns it (active version joined).
    What the caller has read already is not read again (the route page has both; each was a
    query of the checklist's): `endpoints`, the route's as `endpoints_of` reads them;
    `versions`, every version of the route as `version_history` reads them (Q6 names a
    `version:N` target's method)."""
    version = route.active_version
    if version is None:
        missing = "No version of this route is active yet, so nothing is promised: propose a release."
        return Checklist(route.slug, None, [Answer(q, missing, "missing") for q in QUESTIONS])
    doc = version.document
    activation = activating_release(route, version)
    if endpoints is None:  # Q1's live half and Q6's acceptance watch
        endpoints = list(endpoints_of(route))
    return Checklist(
        route.slug,
        version.number,
        [
            with_live(q1_method(route, version, doc, activation), route, endpoints),
            q2_dependencies(route, version, doc),
            q3_compatibility(route, version, doc),
            q4_lanes(route, version, doc),
            q5_measured(route, version, doc),
            q6_rollback(route, version, doc, activation, endpoints, versions),
        ],
    )
