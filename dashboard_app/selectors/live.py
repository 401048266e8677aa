"""Live endpoints as the pages show them: each endpoint's state in words ("canary drifted:
num_speculative_tokens 3 ≠ 5", "prod-eu conforms (probed 2 min ago)"), its acceptance
chart, the drifted endpoints across routes for the overview and the fleet view, and the
two endpoints a release is benchmarked on."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.timesince import timesince

from contracts_app.models import Route
from dashboard_app.charts import figure_json
from dashboard_app.charts.live import acceptance_over_time
from live_app.models import Endpoint, ProbeRequest
from live_app.selectors import (
    acceptance_floor,
    benchmark_acceptance,
    endpoints_of,
    latest_samples,
    pending_requests,
    recent_alerts,
)
from releases_app.choices import ARMS
from releases_app.models import Release
from releases_app.selectors import arm_expectation

DRIFTED = "drifted"


def _value(value: Any) -> str:
    return "unset" if value is None else str(value)


def state_words(endpoint: Endpoint) -> str:
    """One endpoint's state as Q1 and the pages say it."""
    probe = endpoint.last_probe
    if probe is None:
        return f"{endpoint.name} not probed yet"
    if probe.state == DRIFTED:
        diffs = "; ".join(
            f"{d['path'].rsplit('.', 1)[-1]} {_value(d.get('engine'))} ≠ {_value(d.get('contract'))}"
            for d in probe.differences
        )
        return f"{endpoint.name} drifted: {diffs}"
    ago = timesince(probe.probed_at, timezone.now()).split(",")[0].replace("\xa0", " ")
    when = "just now" if ago.startswith("0 ") else f"{ago} ago"  # timesince says "0 minutes" under one
    words = f"{endpoint.name} {probe.state} (probed {when})"
    if probe.state == "unknown" and probe.reason:
        words += f": {probe.reason[:160]}"
    elif probe.coverage:
        # Conforms as far as the engine reports it: say how far (live_app/conformance/coverage.py).
        words += f": {probe.coverage}"
    return words


@dataclass
class EndpointRow:
    endpoint: Endpoint
    words: str
    chart_id: str
    chart_json: str | None
    alerts: list[Any] = field(default_factory=list)
    # The probe someone asked for that the worker has not finished yet, if any.
    pending: ProbeRequest | None = None


SERIES_POINTS = 500
RECENT_ALERTS = 20


def _pending_since() -> datetime:
    """A request still queued long after any probe would have ended is not waited for (the
    control-plane worker may be down): the page stops refreshing for it."""
    return timezone.now() - timedelta(seconds=3 * settings.ENDPOINT_PROBE_TIMEOUT_S + 60)


def endpoint_rows(route: Route, *, charts: bool = True) -> list[EndpointRow]:
    """Constant queries whatever the number of endpoints: the endpoints, their newest
    alerts, their pending probes and (with `charts`) their latest samples, one plain read
    each, and one benchmark read per version. The endpoints table alone (its htmx refresh)
    asks for no charts: it draws none."""
    endpoints = list(endpoints_of(route))
    ids = [e.pk for e in endpoints]
    alerts_of = recent_alerts(ids, RECENT_ALERTS)
    pending_of = pending_requests(ids, _pending_since())
    if not charts:
        return [
            EndpointRow(e, state_words(e), f"live-{e.pk}", None, alerts_of[e.pk], pending_of.get(e.pk))
            for e in endpoints
        ]
    series = latest_samples(ids, SERIES_POINTS)
    references: dict[int, float | None] = {}
    rows = []
    for endpoint in endpoints:
        samples = series[endpoint.pk]
        alerts = alerts_of[endpoint.pk]
        chart = None
        if samples:
            version = endpoint.last_probe.version if endpoint.last_probe else None
            if version is not None and version.pk not in references:
                references[version.pk] = benchmark_acceptance(version)
            reference = references.get(version.pk) if version else None
            floor = acceptance_floor(version, reference) if version else None
            chart = figure_json(
                acceptance_over_time(
                    name=endpoint.name,
                    samples=samples,
                    reference=reference,
                    floor=floor,
                    alerts=[(a.raised_at.isoformat(), a.live_rate) for a in alerts],
                )
            )
        pending = pending_of.get(endpoint.pk)
        rows.append(
            EndpointRow(endpoint, state_words(endpoint), f"live-{endpoint.pk}", chart, alerts, pending)
        )
    return rows


def probes_pending(rows: list[EndpointRow]) -> bool:
    return any(row.pending is not None for row in rows)


def live_words(route: Route, endpoints: list[Endpoint] | None = None) -> str | None:
    """What Q1 adds: each endpoint's state, or None when the route has none (`endpoints`:
    the route's, as `endpoints_of` reads them, when the caller has them already)."""
    endpoints = list(endpoints_of(route)) if endpoints is None else endpoints
    return "; ".join(state_words(e) for e in endpoints) if endpoints else None


def drifted_endpoints(routes: QuerySet[Route] | None = None) -> list[tuple[str, str]]:
    """(route slug, words) of every endpoint whose last probe drifted, of `routes` (default:
    all; a page passes those its reader may see)."""
    qs = (
        Endpoint.objects.filter(state=DRIFTED, **({} if routes is None else {"route__in": routes}))
        .select_related("route", "last_probe")
        .order_by("route__slug", "name")
    )
    return [(e.route.slug, state_words(e)) for e in qs]


@dataclass
class ReleaseArm:
    """One of the two endpoints a release is benchmarked on, as its page shows it."""

    arm: str  # baseline or candidate
    name: str
    wants: str  # what the endpoint must expect for the benchmark to start
    endpoint: Endpoint | None  # None: not registered yet (a canary may come later), or deleted
    words: str


def release_endpoint_arms(release: Release) -> list[ReleaseArm]:
    """The endpoints named by a release proposed with them (baseline first), each with its
    current state; [] for a release on engines the worker launches, without a query."""
    if not release.endpoints:
        return []
    names = [release.endpoints.get(arm) for arm in ARMS]
    found = {e.name: e for e in endpoints_of(release.route).filter(name__in=names)}
    arms = []
    for arm, name in zip(ARMS, names, strict=True):
        endpoint = found.get(name or "")
        words = state_words(endpoint) if endpoint else f"{name} is not registered on {release.route.slug}"
        arms.append(ReleaseArm(arm, str(name), str(arm_expectation(arm, release)), endpoint, words))
    return arms
