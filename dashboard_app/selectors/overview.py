"""Reads for the routes overview and the fleet view: every route with its active contract,
its latest gate verdict and headline speedups, and its open release, in ONE query
(subqueries on the releases table), whatever the number of routes or releases."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery

from contracts_app.models import Route
from releases_app.choices import OPEN_STATES
from releases_app.models import Release

NOT_MEASURED = "none"
# A gated release in one of these states still speaks for the route.
_CURRENT = (
    "awaiting_review",
    "approved",
    "active",
)  # the verdict filter's value for routes without a gate verdict yet


@dataclass(frozen=True)
class Speedup:
    lane: str
    metric: str
    level_kind: str
    level: float
    estimate: float
    ci_low: float | None
    ci_high: float | None

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
    speedups: list[Speedup] = field(default_factory=list)
    open_release_id: int | None = None
    open_release_state: str | None = None

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
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return out


def _annotated(routes: QuerySet[Route]) -> QuerySet[Route]:
    gated = Release.objects.filter(route=OuterRef("pk"), gate_verdict__isnull=False).order_by("-id")
    open_ = Release.objects.filter(route=OuterRef("pk"), state__in=OPEN_STATES).order_by("-id")
    return routes.select_related("active_version").annotate(
        gated_release_id=Subquery(gated.values("pk")[:1]),
        last_verdict=Subquery(gated.values("gate_verdict")[:1]),
        gated_release_state=Subquery(gated.values("state")[:1]),
        last_speedup=Subquery(gated.values("gate_result__speedup")[:1]),
        open_release_id=Subquery(open_.values("pk")[:1]),
        open_release_state=Subquery(open_.values("state")[:1]),
    )


def route_rows(routes: QuerySet[Route] | None = None) -> list[RouteRow]:
    """Routes (default: all; filtered by `contracts_app.filtersets.RouteFilterSet`) as
    overview rows."""
    qs = _annotated(routes if routes is not None else Route.objects.all()).order_by("slug")
    rows = []
    for route in qs:
        doc = route.active_version.document if route.active_version else {}
        lanes = doc.get("lanes") or {}
        rows.append(
            RouteRow(
                route=route,
                method=route.active_version.speculation_method if route.active_version else None,
                lanes=list(lanes.get("allowed") or []),
                excluded=list(lanes.get("excluded") or []),
                gated_release_id=route.gated_release_id,  # type: ignore[attr-defined]
                verdict=route.last_verdict,  # type: ignore[attr-defined]
                gated_release_state=route.gated_release_state,  # type: ignore[attr-defined]
                speedups=_speedups(route.last_speedup),  # type: ignore[attr-defined]
                open_release_id=route.open_release_id,  # type: ignore[attr-defined]
                open_release_state=route.open_release_state,  # type: ignore[attr-defined]
            )
        )
    return rows


def fleet_cells(rows: list[RouteRow]) -> list[dict[str, Any]]:
    """Heatmap cells (`fleet_heatmap` input): per route and measured lane, the latest
    gate's headline speedup and verdict, and what became of that release when it is not
    the one serving (a rolled-back or rejected release's speedup is history)."""
    return [
        {
            "route": row.route.slug,
            "lane": s.lane,
            "speedup": s.estimate,
            "verdict": row.verdict
            if row.gated_release_state in _CURRENT
            else f"{row.verdict}, {str(row.gated_release_state).replace('_', ' ')}",
            "gate_verdict": row.verdict,
            "release_state": row.gated_release_state,
            "release_state_words": str(row.gated_release_state or "").replace("_", " "),
            "release_id": row.gated_release_id,
            "metric": s.metric,
            "level": s.level_words,
        }
        for row in rows
        for s in row.speedups
    ]
