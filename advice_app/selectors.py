"""Reads of advice runs, limited to the subject's routes: outside its scope an advice run
answers 404 as if it did not exist (accounts_app.permissions). And whether a route's
latest finished advice still holds (issue 24 point 5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from accounts_app.permissions import ensure_route_access, scope_queryset
from advice_app.choices import AdviceState
from advice_app.models import AdviceRun, AdviceRunQuerySet
from benchmarks_app.models import Run
from contracts_app.models import ContractVersion, Route
from contracts_app.selectors import route_get
from kernel.errors import NotFound
from live_app.models import AcceptanceAlert


def advice_list(*, subject: Any, route: Route | None = None) -> AdviceRunQuerySet:
    """Newest first, without the records; of one route when given."""
    qs = AdviceRun.objects.for_listing().order_by("-created_at", "-id")
    if route is not None:
        qs = qs.filter(route=route)
    return scope_queryset(subject, qs)  # type: ignore[return-value]


def advice_route(*, subject: Any, slug: str) -> Route:
    route = route_get(slug)
    ensure_route_access(subject, route)
    return route


def advice_get(*, subject: Any, advice_id: int) -> AdviceRun:
    """With its records (what the budget spent is counted from)."""
    qs = AdviceRun.objects.select_related("route", "based_on", "draft_version", "release", "created_by")
    advice = scope_queryset(subject, qs).filter(pk=advice_id).first()
    if advice is None:
        raise NotFound(f"No advice run {advice_id}.")
    return advice


def advice_runs(advice: AdviceRun) -> list[Run]:
    """Its benchmark runs, oldest first (one query; no results read)."""
    return list(Run.objects.filter(advice=advice).only("id", "state", "lane", "last_error").order_by("id"))


def gpu_minutes_spent(advice: AdviceRun) -> float:
    """The minutes its runs have held a worker: started to finished, or to now for a run
    still running (one query, one row per run)."""
    now = timezone.now()
    held = Run.objects.filter(advice=advice, started_at__isnull=False).values_list(
        "started_at", "finished_at"
    )
    return sum(((end or now) - start).total_seconds() for start, end in held if start is not None) / 60


def spent_per_lane(advice: AdviceRun) -> dict[str, int]:
    """Requests recorded per lane, both arms: what the budget has bought so far."""
    return {
        lane: sum(
            len(r["samples"]["e2e"]) + int(r["samples"].get("n_errors", 0))
            for r in advice.records.get(lane, [])
        )
        for lane in advice.lanes
    }


@dataclass(frozen=True)
class Staleness:
    advice: AdviceRun
    reasons: tuple[str, ...]  # empty: it still holds

    @property
    def stale(self) -> bool:
        return bool(self.reasons)


def engine_of(version: ContractVersion | None) -> tuple[str, str]:
    """The engine and its release a version runs on, as an advice run snapshots them."""
    target = (version.document.get("target") or {}) if version is not None else {}
    return str(target.get("engine") or ""), str(target.get("engine_version") or "")


def advice_staleness(route: Route) -> Staleness | None:
    """The route's latest finished advice and why it no longer holds, in words: the active
    version runs another engine release than the one measured, or the acceptance watch
    raised an alert on one of the route's endpoints after the advice finished. None when
    the route has no finished advice. One query without advice (most routes), two with: the
    newest alert since is read only then (as three subqueries of the one read, its compile
    was most of the route page's cost of asking, issue 26 point 1)."""
    advice = (
        AdviceRun.objects.filter(route=route, state=AdviceState.FINISHED, finished_at__isnull=False)
        .only("id", "route_id", "engine", "engine_release", "finished_at", "lanes")
        .order_by("-finished_at", "-id")
        .first()
    )
    if advice is None:
        return None
    reasons = []
    engine, release = engine_of(route.active_version)
    if route.active_version is not None and (engine, release) != (advice.engine, advice.engine_release):
        measured = _engine_words(advice.engine, advice.engine_release)
        reasons.append(
            f"The engine release changed: the advice measured {measured}; "
            f"the active version (v{route.active_version.number}) runs {_engine_words(engine, release)}."
        )
    alert = (
        AcceptanceAlert.objects.filter(endpoint__route=route, raised_at__gt=advice.finished_at)
        .order_by("-raised_at", "-id")
        .values_list("raised_at", "endpoint__name", "reason")
        .first()
    )
    if alert is not None:
        alert_at, endpoint, reason = alert
        reasons.append(
            f"The acceptance watch saw acceptance drift on endpoint {endpoint} at "
            f"{alert_at:%Y-%m-%d %H:%M} UTC, after the advice finished: {reason}"
        )
    return Staleness(advice, tuple(reasons))


def _engine_words(engine: str, release: str) -> str:
    return f"{engine} {release}".strip() if release else f"{engine} (release not stated)"
