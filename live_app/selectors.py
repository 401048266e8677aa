"""live_app's reads."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from django.db import connection
from django.db.models import F, Func, JSONField, QuerySet, Window
from django.db.models.functions import RowNumber

from benchmarks_app.models import RunResult
from contracts_app.models import ContractVersion, Route
from live_app.choices import ProbeRequestState
from live_app.models import AcceptanceAlert, Endpoint, ProbeRequest, SecretBinding

# A release's states once an approver approved it (releases_app.choices.ReleaseState, read
# through the run's release without importing releases_app, which sits above live_app;
# tests/live/test_acceptance_floor.py holds the two equal).
APPROVED_STATES = ("approved", "active", "rolled_back", "superseded")


def endpoints_of(route: Route) -> QuerySet[Endpoint]:
    # The binding comes along: a probe reads it in a thread, where no query may run.
    return Endpoint.objects.filter(route=route).select_related(
        "last_probe", "last_probe__version", "auth_binding"
    )


def endpoint_get(route: Route, name: str) -> Endpoint | None:
    return endpoints_of(route).filter(name=name).first()


def bindings_of(route: Route) -> QuerySet[SecretBinding]:
    return SecretBinding.objects.filter(route=route).select_related("route").prefetch_related("endpoints")


def binding_get(route: Route, name: str) -> SecretBinding | None:
    return bindings_of(route).filter(name=name).first()


def probe_request_get(endpoint: Endpoint, request_id: int) -> ProbeRequest | None:
    return (
        ProbeRequest.objects.filter(endpoint=endpoint, pk=request_id)
        .select_related("probe", "probe__version")
        .first()
    )


FINISHED = (ProbeRequestState.DONE, ProbeRequestState.FAILED)


def probe_request_wait(asked: ProbeRequest, wait_s: float, *, poll_s: float = 0.05) -> ProbeRequest:
    """`asked` as it is once finished, or after `wait_s` (then still queued or running)."""
    ends_at = time.monotonic() + wait_s
    while asked.state not in FINISHED and time.monotonic() < ends_at:
        time.sleep(min(poll_s, max(0.0, ends_at - time.monotonic())))
        state = ProbeRequest.objects.filter(pk=asked.pk).values_list("state", flat=True).first()
        if state is None:  # the endpoint was deleted meanwhile, and its requests with it
            break
        asked.state = state
    return probe_request_get(asked.endpoint, asked.pk) or asked


# The candidate levels' acceptance rates of a run's aggregates, read in SQL: the route page
# reads this per view, and decoding every level's aggregates (30 KB a run on the generated
# data) to keep one number each cost more than the query (issue 26, point 1).
_CANDIDATE_RATES = "$.candidate[*].scalars.acceptance_rate"


def benchmark_acceptance(version: ContractVersion) -> float | None:
    """The acceptance rate the benchmark measured for `version` as a candidate, in the
    release that approved it: the mean over its runs' levels that report one."""
    results = RunResult.objects.filter(
        run__candidate_version=version, run__release__state__in=APPROVED_STATES
    )
    if connection.vendor == "postgresql":
        found = results.annotate(
            rates=Func(
                F("aggregates"),
                function="jsonb_path_query_array",
                template=f"%(function)s(%(expressions)s, '{_CANDIDATE_RATES}')",
                output_field=JSONField(),
            )
        ).values_list("rates", flat=True)
        values = [rate for rates in found for rate in rates or []]
    else:
        values = [
            (level.get("scalars") or {}).get("acceptance_rate")
            for aggregates in results.values_list("aggregates", flat=True)
            for level in (aggregates or {}).get("candidate") or []
        ]
    rates = [rate for rate in values if isinstance(rate, (int, float))]
    return sum(rates) / len(rates) if rates else None


def acceptance_trigger(version: ContractVersion) -> dict[str, Any] | None:
    """The contract's `acceptance_drop` rollback trigger, if it has one."""
    triggers = (version.document.get("rollback") or {}).get("triggers") or []
    return next((t for t in triggers if t.get("kind") == "acceptance_drop"), None)


def engine_switch_off(version: ContractVersion) -> dict[str, Any] | None:
    """The contract's own engine-side switch-off (`speculation.acceptance_cutoff`), if any."""
    cutoff = (version.document.get("speculation") or {}).get("acceptance_cutoff")
    return cutoff if isinstance(cutoff, dict) else None


def acceptance_floor(version: ContractVersion, reference: float | None) -> float | None:
    """The live acceptance below which a window counts against `version`: its trigger's
    `min_ratio` × what its benchmark measured (`reference`); None without either. The
    watch and the live chart draw the same line."""
    trigger = acceptance_trigger(version)
    return float(trigger["min_ratio"]) * reference if trigger and reference else None


# One live sample as the route page draws it: (taken_at as ISO 8601 text, window acceptance
# rate, reset).
SamplePoint = tuple[str, float | None, bool]

# The newest samples of each endpoint, one index range per endpoint: LATERAL ... LIMIT
# walks the `sample_endpoint_newest` index (endpoint, -taken_at, -id) backwards and stops
# after `limit` rows. A sliced Prefetch would rank every sample of every endpoint with
# ROW_NUMBER() first (129,600 rows sorted to keep 1,500, issue 26 profile item 2).
# `taken_at` comes as the text `datetime.isoformat()` gives in UTC (microseconds only when
# there are some): the chart wants text, and parsing 1,500 timestamps into datetimes only to
# format them again was a tenth of the route page's CPU (issue 26, point 1).
_LATEST_SAMPLES_SQL = """
SELECT e.id,
       to_char(s.taken_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
       || CASE WHEN extract(microseconds FROM s.taken_at)::bigint %% 1000000 = 0 THEN ''
               ELSE to_char(s.taken_at AT TIME ZONE 'UTC', '.US') END
       || '+00:00',
       s.window_acceptance_rate, s.reset
FROM unnest(%s::bigint[]) AS e(id)
CROSS JOIN LATERAL (
    SELECT taken_at, id, window_acceptance_rate, reset
    FROM live_app_acceptancesample
    WHERE endpoint_id = e.id
    ORDER BY taken_at DESC, id DESC
    LIMIT %s
) AS s
ORDER BY e.id, s.taken_at, s.id
"""


def latest_samples(endpoint_ids: list[int], limit: int) -> dict[int, list[SamplePoint]]:
    """Each endpoint's newest `limit` samples, oldest first, as plain tuples (no model
    instances: the page draws three fields of 1,500 rows). One query for any number of
    endpoints."""
    from live_app.models import AcceptanceSample

    out: dict[int, list[SamplePoint]] = {pk: [] for pk in endpoint_ids}
    if not endpoint_ids:
        return out
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_LATEST_SAMPLES_SQL, [endpoint_ids, limit])
            for pk, taken_at, rate, reset in cursor.fetchall():
                out[pk].append((taken_at, rate, reset))
        return out
    # SQLite (the embedded demo): no LATERAL; its few samples are ranked in one query.
    ranked = (
        AcceptanceSample.objects.filter(endpoint_id__in=endpoint_ids)
        .annotate(
            newest=Window(
                RowNumber(), partition_by=[F("endpoint_id")], order_by=[F("taken_at").desc(), F("id").desc()]
            )
        )
        .filter(newest__lte=limit)
        .order_by("endpoint_id", "taken_at", "id")
        .values_list("endpoint_id", "taken_at", "window_acceptance_rate", "reset")
    )
    for pk, taken_at, rate, reset in ranked:
        out[pk].append((taken_at.astimezone(UTC).isoformat(), rate, reset))
    return out


# Each endpoint's newest alerts, and its newest probe request still queued or running, for
# the route page: one plain query each. As sliced Prefetches they were a ROW_NUMBER()
# subquery each, whose compilation alone cost more than the reads (issue 26, point 1).
_RECENT_ALERTS_SQL = """
SELECT a.*
FROM unnest(%s::bigint[]) AS e(id)
CROSS JOIN LATERAL (
    SELECT * FROM live_app_acceptancealert
    WHERE endpoint_id = e.id
    ORDER BY raised_at DESC, id DESC
    LIMIT %s
) AS a
ORDER BY a.endpoint_id, a.raised_at DESC, a.id DESC
"""

_PENDING_REQUESTS_SQL = """
SELECT DISTINCT ON (endpoint_id) *
FROM live_app_proberequest
WHERE endpoint_id = ANY(%s::bigint[]) AND state = ANY(%s) AND requested_at >= %s
ORDER BY endpoint_id, requested_at DESC, id DESC
"""

PENDING_STATES = (ProbeRequestState.QUEUED, ProbeRequestState.RUNNING)


def recent_alerts(endpoint_ids: list[int], limit: int) -> dict[int, list[AcceptanceAlert]]:
    """Each endpoint's newest `limit` alerts, newest first (one query)."""
    out: dict[int, list[AcceptanceAlert]] = {pk: [] for pk in endpoint_ids}
    if not endpoint_ids:
        return out
    if connection.vendor == "postgresql":
        alerts: Any = AcceptanceAlert.objects.raw(_RECENT_ALERTS_SQL, [endpoint_ids, limit])
    else:  # SQLite (the embedded demo): no LATERAL; its few alerts are ranked in one query
        alerts = (
            AcceptanceAlert.objects.filter(endpoint_id__in=endpoint_ids)
            .annotate(
                newest=Window(
                    RowNumber(),
                    partition_by=[F("endpoint_id")],
                    order_by=[F("raised_at").desc(), F("id").desc()],
                )
            )
            .filter(newest__lte=limit)
            .order_by("endpoint_id", "-raised_at", "-id")
        )
    for alert in alerts:
        out[alert.endpoint_id].append(alert)
    return out


def pending_requests(endpoint_ids: list[int], since: datetime) -> dict[int, ProbeRequest]:
    """Each endpoint's newest probe request asked at or after `since` and still queued or
    running, if it has one (one query)."""
    if not endpoint_ids:
        return {}
    if connection.vendor == "postgresql":
        states = [str(s) for s in PENDING_STATES]
        found: Any = ProbeRequest.objects.raw(_PENDING_REQUESTS_SQL, [endpoint_ids, states, since])
    else:
        found = ProbeRequest.objects.filter(
            endpoint_id__in=endpoint_ids, state__in=PENDING_STATES, requested_at__gte=since
        ).order_by("-requested_at", "-id")
    out: dict[int, ProbeRequest] = {}
    for request in found:
        out.setdefault(request.endpoint_id, request)
    return out
