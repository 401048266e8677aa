"""The reads behind `/metrics`: each one aggregate query (or one row per endpoint or
worker, sets that grow with the fleet, not with history), so a scrape costs the same
at ten releases as at a hundred thousand. Every value comes from stored rows; nothing
here counts in process memory, so every gunicorn worker answers the same."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from django.db import connection
from django.db.models import Count, DurationField, ExpressionWrapper, F, Max, Min, OuterRef, Q, Subquery, Sum

from audit_app.models import AuditChainMark, AuditCheckpoint
from benchmarks_app.models import OutboxMessage, Run, Worker
from live_app.models import AcceptanceAlert, AcceptanceSample, Endpoint
from releases_app.choices import DecisionKind
from releases_app.models import Decision, Release
from webhooks_app.models import Delivery, DeliveryState

# Upper bounds (seconds) of the proposal-to-decision histogram: 10 min … 1 week.
DECISION_BUCKETS_S: tuple[float, ...] = (600, 3600, 6 * 3600, 86400, 3 * 86400, 7 * 86400)
DECIDING_KINDS = (DecisionKind.APPROVE, DecisionKind.REJECT)


def releases_by_state() -> dict[str, int]:
    return dict(Release.objects.order_by().values_list("state").annotate(n=Count("id")))


# Each stored gate's `checks` (benchmarks_app/gate/result.py `CheckResult`: one rule at one
# lane and level), unnested in the database. Both engines the project runs on can.
_CHECKS_SQL = {
    # https://www.postgresql.org/docs/16/functions-json.html (jsonb_array_elements)
    "postgresql": """
        SELECT c->>'rule_id', COALESCE(c->>'lane', ''), c->>'verdict', COUNT(*)
        FROM releases_app_release r, jsonb_array_elements(r.gate_result->'checks') c
        WHERE jsonb_typeof(r.gate_result->'checks') = 'array'
        GROUP BY 1, 2, 3""",
    # https://www.sqlite.org/json1.html#jeach (json_each)
    "sqlite": """
        SELECT json_extract(c.value, '$.rule_id'), COALESCE(json_extract(c.value, '$.lane'), ''),
               json_extract(c.value, '$.verdict'), COUNT(*)
        FROM releases_app_release r, json_each(r.gate_result, '$.checks') c
        WHERE json_type(r.gate_result, '$.checks') = 'array'
        GROUP BY 1, 2, 3""",
}


def gate_checks_by_rule_and_lane() -> dict[tuple[str, str, str], int]:
    """(rule id, lane, verdict) → how many checks of stored gates had that verdict."""
    with connection.cursor() as cursor:
        cursor.execute(_CHECKS_SQL[connection.vendor])
        return {(str(rule), str(lane), str(verdict)): int(n) for rule, lane, verdict, n in cursor.fetchall()}


@dataclass(frozen=True)
class DecisionTimes:
    kind: str
    count: int
    sum_s: float
    # Cumulative counts at DECISION_BUCKETS_S, in order.
    buckets: tuple[int, ...]


def decision_times() -> list[DecisionTimes]:
    """Per deciding kind (approve, reject), the time from the release's proposal to the
    decision, as a histogram: one grouped query."""
    waited = ExpressionWrapper(F("created_at") - F("release__created_at"), output_field=DurationField())
    per_bucket = {
        f"le{i}": Count("id", filter=Q(waited__lte=timedelta(seconds=b)))
        for i, b in enumerate(DECISION_BUCKETS_S)
    }
    rows = (
        Decision.objects.filter(kind__in=DECIDING_KINDS)
        .order_by()
        .alias(waited=waited)
        .values("kind")
        .annotate(n=Count("id"), total=Sum("waited"), **per_bucket)
    )
    out = []
    for row in rows:
        values = cast(dict[str, Any], row)  # the bucket columns are named at run time
        total = values["total"]
        out.append(
            DecisionTimes(
                kind=values["kind"],
                count=values["n"],
                sum_s=total.total_seconds() if total is not None else 0.0,
                buckets=tuple(values[f"le{i}"] for i in range(len(DECISION_BUCKETS_S))),
            )
        )
    return out


@dataclass(frozen=True)
class EndpointRow:
    route: str
    endpoint: str
    state: str
    acceptance_rate: float | None
    below_floor: bool | None
    sampled_at: datetime | None


def endpoints_with_latest_window() -> list[EndpointRow]:
    """Every endpoint, its conformance state and its newest acceptance window (the newest
    sample that has one): one query, a subquery per column on the (endpoint, -taken_at)
    index."""
    latest = AcceptanceSample.objects.filter(
        endpoint=OuterRef("pk"), window_acceptance_rate__isnull=False
    ).order_by("-taken_at", "-id")
    rows = (
        Endpoint.objects.order_by("route__slug", "name")
        .annotate(
            rate=Subquery(latest.values("window_acceptance_rate")[:1]),
            below=Subquery(latest.values("below_floor")[:1]),
            sampled=Subquery(latest.values("taken_at")[:1]),
        )
        .values_list("route__slug", "name", "state", "rate", "below", "sampled")
    )
    return [EndpointRow(*row) for row in rows]


def acceptance_alerts_by_state() -> dict[str, int]:
    return dict(AcceptanceAlert.objects.order_by().values_list("state").annotate(n=Count("id")))


@dataclass(frozen=True)
class WaitingRuns:
    queue: str
    engine: str
    count: int
    oldest: datetime | None


def runs_waiting_for_worker() -> list[WaitingRuns]:
    """Queued runs no online worker can serve (the sweep sets `waiting_reason`), by what
    they need: the queue (hardware pool) and the engine. The reason itself, in words, is
    on the run's page; a label per sentence would be a series per run."""
    rows = (
        Run.objects.filter(state="queued")
        .exclude(waiting_reason="")
        .order_by()
        .values_list("queue", "engine_kind")
        .annotate(n=Count("id"), oldest=Min("waiting_since"))
    )
    return [WaitingRuns(q, e, n, oldest) for q, e, n, oldest in rows]


def runs_by_state() -> dict[str, int]:
    return dict(Run.objects.order_by().values_list("state").annotate(n=Count("id")))


def workers_heartbeats() -> list[tuple[int, str, str, datetime | None]]:
    """(id, name, hardware class, last heartbeat) of every worker not revoked."""
    return list(
        Worker.objects.filter(revoked_at__isnull=True)
        .order_by("id")
        .values_list("id", "name", "hardware_class", "last_heartbeat_at")
    )


@dataclass(frozen=True)
class Backlog:
    count: int
    oldest: datetime | None


def outbox_backlog() -> Backlog:
    """Benchmark dispatches written but not yet published to the broker (`is_pending`)."""
    row = OutboxMessage.objects.filter(published_at__isnull=True, discarded_at__isnull=True).aggregate(
        n=Count("id"), oldest=Min("created_at")
    )
    return Backlog(row["n"], row["oldest"])


def webhook_deliveries() -> tuple[dict[str, int], datetime | None]:
    """Deliveries by state, and the oldest one still to send (pending or retrying)."""
    rows = Delivery.objects.order_by().values_list("state").annotate(n=Count("id"))
    oldest = Delivery.objects.filter(state__in=(DeliveryState.PENDING, DeliveryState.RETRYING)).aggregate(
        oldest=Min("created_at")
    )["oldest"]
    return dict(rows), oldest


@dataclass(frozen=True)
class AuditHealth:
    # The last full walk's answer (None: never walked), and when it ran.
    valid: bool | None
    problem: str | None
    full_at: datetime | None
    last_checkpoint_at: datetime | None


def audit_health() -> AuditHealth:
    mark = AuditChainMark.objects.filter(pk=1).values_list("full_status", "full_at").first()
    status, full_at = mark if mark else (None, None)
    last = AuditCheckpoint.objects.aggregate(at=Max("signed_at"))["at"]
    if not isinstance(status, dict):
        return AuditHealth(None, None, full_at, last)
    return AuditHealth(bool(status.get("valid")), status.get("problem"), full_at, last)
