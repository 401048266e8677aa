"""Reads for the routes overview, the fleet view and the route card: every route with its
active contract, the headline speedups of what is active NOW (the latest gated release
whose candidate is the active version), its latest gate verdict, and its open release, in
ONE query (three subqueries on the releases table, one JSON row each), whatever the number
of routes or releases, with its live endpoints' conformance (on PostgreSQL in the same query,
elsewhere in one more, a prefetch).

A gated release that no longer speaks for the route (rolled back, rejected, superseded by
another version) is history: its speedup is shown only as such, never as the route's."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import JSONField, OuterRef, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.db.models.functions import JSONObject
from django.utils import timezone

from benchmarks_app.gate.wording import speedup_words
from contracts_app.models import Route
from dashboard_app.selectors.conformance import (
    ENDPOINTS_JSON_SQL,
    Conformance,
    conformance_of,
    conformance_of_json,
    live_endpoints_prefetch,
)
from dashboard_app.selectors.description import route_description
from releases_app.choices import OPEN_STATES
from releases_app.models import Release

NOT_MEASURED = "none"
# A gated release in one of these states still speaks for the route.
_CURRENT = (
    "awaiting_review",
    "approved",
    "active",
)  # the verdict filter's value for routes without a gate verdict yet


def since_words(moment: datetime | None) -> dict[str, str] | None:
    """`moment` as the pages print it, what `|date:'c'`, `|date:'Y-m-d H:i'` and
    `|date:'Y-m-d'` give in the current time zone, at a fraction of the filters' cost (three
    a row were a tenth of the overview's template time, issue 26 point 1)."""
    if moment is None:
        return None
    local = timezone.localtime(moment) if timezone.is_aware(moment) else moment
    return {
        "iso": local.isoformat(),
        "minute": local.strftime("%Y-%m-%d %H:%M"),
        "day": local.strftime("%Y-%m-%d"),
    }


@dataclass(frozen=True)
class Speedup:
    lane: str
    metric: str
    level_kind: str
    level: float
    estimate: float
    ci_low: float | None
    ci_high: float | None
    # Requests per arm at that level (None in gate results stored before they were kept).
    n_baseline: int | None = None
    n_candidate: int | None = None

    @property
    def words(self) -> str:
        """'2.34× [1.41, 6.72], n=12': never a bare number."""
        return speedup_words(self.estimate, self.ci_low, self.ci_high, self.n_baseline, self.n_candidate)

    @property
    def level_words(self) -> str:
        return f"{self.level:g} req/s" if self.level_kind == "rate" else f"concurrency {self.level:g}"


@dataclass(frozen=True)
class RouteRow:
    route: Route
    method: str | None
    lanes: list[str]
    excluded: list[str]
    gated_release_id: int | None
    verdict: str | None
    gated_release_state: str | None = None
    # The speedups of the active version (measured by `current_release_id`); empty when
    # what is active now was never measured (e.g. after a rollback to speculation off).
    speedups: list[Speedup] = field(default_factory=list)
    open_release_id: int | None = None
    open_release_state: str | None = None
    current_release_id: int | None = None
    current_verdict: str | None = None
    # The latest gate's speedups when that release is not the active version's: history.
    history_speedups: list[Speedup] = field(default_factory=list)
    # Each live endpoint's conformance (state and coverage words), by name.
    conformance: list[Conformance] = field(default_factory=list)

    @functools.cached_property
    def since(self) -> dict[str, str] | None:
        """Since when the active version runs (`since_words`), None when none does."""
        return since_words(self.route.active_since)

    @property
    def description(self) -> str:
        """The active version's description (never the first upload's, once it is not active)."""
        return route_description(self.route)

    @property
    def verdict_is_history(self) -> bool:
        """The gated release no longer speaks for the route (rolled back, rejected, …)."""
        return self.gated_release_state not in _CURRENT

    @property
    def gated_release_state_words(self) -> str:
        return str(self.gated_release_state or "").replace("_", " ")

    @property
    def open_release_state_words(self) -> str:
        return str(self.open_release_state or "").replace("_", " ")


def _speedups(raw: Any) -> list[Speedup]:
    """The gate result's `speedup` list (GateResult.headline_speedups); malformed entries skipped."""
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(
                Speedup(
                    lane=str(item["lane"]),
                    metric=str(item["metric"]),
                    level_kind=str(item.get("level_kind") or "concurrency"),
                    level=float(item["level"]),
                    estimate=float(item["estimate"]),
                    ci_low=item.get("ci_low"),
                    ci_high=item.get("ci_high"),
                    n_baseline=item.get("n_baseline"),
                    n_candidate=item.get("n_candidate"),
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return out


def _latest(releases: QuerySet[Release], **fields: Any) -> Subquery:
    """The newest of `releases` as one JSON object of `fields`: one correlated subquery per
    kind of release instead of one per field (nine index probes per route became three)."""
    return Subquery(releases.order_by("-id").values(row=JSONObject(**fields))[:1])


@functools.cache
def _annotations() -> dict[str, Subquery]:
    """The three subqueries, built once per process: they depend on nothing but the outer
    route, and `annotate` resolves a copy of each (building them was a fifth of the rows'
    CPU per page, issue 26 point 1). The portable form; PostgreSQL reads `_RELEASES_SQL`."""
    route = OuterRef("pk")
    gated = Release.objects.filter(route=route, gate_verdict__isnull=False)
    open_ = Release.objects.filter(route=route, state__in=OPEN_STATES)
    # What runs now: the latest gated release whose candidate is the active version.
    current = gated.filter(candidate_version=OuterRef("active_version"))
    return {
        "current_release": _latest(current, id="pk", verdict="gate_verdict", speedup="gate_result__speedup"),
        "gated_release": _latest(
            gated, id="pk", verdict="gate_verdict", state="state", speedup="gate_result__speedup"
        ),
        "open_release": _latest(open_, id="pk", state="state"),
    }


# `_annotations` as PostgreSQL text: the same three newest-release reads, without the ORM
# resolving and compiling three JSON subqueries on every page (1.2 ms a request, about a
# floor's worth, issue 26 point 1). tests/dashboard/test_overview_reads.py holds both
# forms equal.
_LATEST_SQL = """(
    SELECT jsonb_build_object({fields}) FROM releases_app_release r
    WHERE r.route_id = "contracts_app_route"."id" AND {where}
    ORDER BY r.id DESC LIMIT 1
)"""
_GATED = "r.gate_verdict IS NOT NULL"
_SPEEDUP = "'speedup', r.gate_result -> 'speedup'"
_RELEASES_SQL = {
    "current_release": _LATEST_SQL.format(
        fields=f"'id', r.id, 'verdict', r.gate_verdict, {_SPEEDUP}",
        where=f'{_GATED} AND r.candidate_version_id = "contracts_app_route"."active_version_id"',
    ),
    "gated_release": _LATEST_SQL.format(
        fields=f"'id', r.id, 'verdict', r.gate_verdict, 'state', r.state, {_SPEEDUP}", where=_GATED
    ),
    "open_release": _LATEST_SQL.format(fields="'id', r.id, 'state', r.state", where="r.state = ANY(%s)"),
}
_RELEASES_PARAMS: dict[str, tuple[Any, ...]] = {"open_release": ([str(s) for s in OPEN_STATES],)}


def _as_text() -> bool:
    """PostgreSQL reads the rows' releases and endpoints as text (`_RELEASES_SQL`,
    `ENDPOINTS_JSON_SQL`); other databases through the ORM."""
    return connection.vendor == "postgresql"


def _release_annotations() -> dict[str, Any]:
    if not _as_text():
        return _annotations()
    return {
        # Constant text; the one value (the open states) is a parameter.
        name: RawSQL(sql, _RELEASES_PARAMS.get(name, ()), output_field=JSONField())  # noqa: S611
        for name, sql in _RELEASES_SQL.items()
    }


def _annotated(routes: QuerySet[Route]) -> QuerySet[Route]:
    return routes.select_related("active_version").annotate(**_release_annotations())


def _with_conformance(qs: QuerySet[Route]) -> QuerySet[Route]:
    if _as_text():
        return qs.annotate(live_endpoints_json=RawSQL(ENDPOINTS_JSON_SQL, (), output_field=JSONField()))  # noqa: S611  # constant text
    return qs.prefetch_related(live_endpoints_prefetch())


def _conformance(route: Route) -> list[Conformance]:
    items = getattr(route, "live_endpoints_json", None)
    if items is not None:
        return conformance_of_json(json.loads(items) if isinstance(items, str) else items)
    return [conformance_of(e) for e in getattr(route, "live_endpoints", [])]


def _field(row: Any, name: str) -> Any:
    """A field of a `_latest` object (None where the route has no such release); SQLite's
    JSON comes back as text."""
    if isinstance(row, str):
        row = json.loads(row)
    return row.get(name) if isinstance(row, dict) else None


def route_rows(routes: QuerySet[Route] | None = None, *, conformance: bool = True) -> list[RouteRow]:
    """Routes (default: all; filtered by `contracts_app.filtersets.RouteFilterSet`) as
    overview rows; `conformance`: with their live endpoints' (one query more on SQLite)."""
    qs = _annotated(routes if routes is not None else Route.objects.all()).order_by("slug")
    if conformance:
        qs = _with_conformance(qs)
    rows = []
    for route in qs:
        doc = route.active_version.document if route.active_version else {}
        lanes = doc.get("lanes") or {}
        current = route.current_release  # type: ignore[attr-defined]
        gated = route.gated_release  # type: ignore[attr-defined]
        open_ = route.open_release  # type: ignore[attr-defined]
        gated_release_id = _field(gated, "id")
        current_release_id = _field(current, "id")
        rows.append(
            RouteRow(
                route=route,
                method=route.active_version.speculation_method if route.active_version else None,
                lanes=list(lanes.get("allowed") or []),
                excluded=list(lanes.get("excluded") or []),
                gated_release_id=gated_release_id,
                verdict=_field(gated, "verdict"),
                gated_release_state=_field(gated, "state"),
                speedups=_speedups(_field(current, "speedup")),
                open_release_id=_field(open_, "id"),
                open_release_state=_field(open_, "state"),
                current_release_id=current_release_id,
                current_verdict=_field(current, "verdict"),
                history_speedups=(
                    _speedups(_field(gated, "speedup")) if gated_release_id != current_release_id else []
                ),
                conformance=_conformance(route),
            )
        )
    return rows


def fleet_cells(rows: list[RouteRow]) -> list[dict[str, Any]]:
    """Heatmap cells (`fleet_heatmap` input): per route and measured lane, the headline
    speedup of what is active now, with the release that measured it. A route whose active
    version was never measured has no cell (its last measurement is history: `fleet_history`)."""
    return [
        {
            "route": row.route.slug,
            "lane": s.lane,
            "speedup": s.estimate,
            "speedup_words": s.words,
            "verdict": f"{row.current_verdict}, release #{row.current_release_id}",
            "gate_verdict": row.current_verdict,
            "release_id": row.current_release_id,
            "active_since": row.route.active_since,
            "since": row.since,
            "metric": s.metric,
            "level": s.level_words,
        }
        for row in rows
        for s in row.speedups
    ]


def fleet_history(rows: list[RouteRow]) -> list[RouteRow]:
    """Routes whose latest measured speedup belongs to a release that is not what runs now."""
    return [row for row in rows if row.history_speedups]
