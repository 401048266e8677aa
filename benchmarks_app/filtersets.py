"""Filters for runs and workers: `GET /api/v1/runs/` and `GET /api/v1/workers/`."""

from __future__ import annotations

import django_filters
from django.core.validators import RegexValidator
from django.db.models import Q, QuerySet

from benchmarks_app.choices import RunState
from benchmarks_app.models import Run, Worker
from benchmarks_app.models.workers import offline_cutoff
from contracts_app.document.schema import LANE_PATTERN, ROUTE_HELP, ROUTE_PATTERN
from kernel.filtersets import ChoiceInFilter, IdFilter, pattern_filter

WORKER_STATUSES = [("online", "online"), ("offline", "offline"), ("revoked", "revoked")]


class RunFilterSet(django_filters.FilterSet):
    state = ChoiceInFilter(
        field_name="state", choices=RunState.choices, help_text="state, or several separated by commas"
    )
    route = pattern_filter("route__slug", pattern=ROUTE_PATTERN, message=ROUTE_HELP, help_text="route slug")
    release = IdFilter(field_name="release_id", help_text="release id")
    worker = IdFilter(field_name="worker_id", help_text="id of the worker that ran it")
    lane = django_filters.CharFilter(
        field_name="lane",
        max_length=63,
        validators=[RegexValidator(LANE_PATTERN, "a lane is lowercase letters, digits, '_' or '-'")],
        help_text="workload lane",
    )

    class Meta:
        model = Run
        fields: list[str] = []


class WorkerFilterSet(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        method="filter_status", choices=WORKER_STATUSES, help_text="as `status` in the response"
    )
    hardware_class = django_filters.CharFilter(
        field_name="hardware_class", max_length=64, help_text="`cpu`, `gpu-h100`, …"
    )

    class Meta:
        model = Worker
        fields: list[str] = []

    def filter_status(self, queryset: QuerySet[Worker], name: str, value: str) -> QuerySet[Worker]:
        """The same rule as `Worker.status`: revoked first, then the heartbeat's age."""
        if value == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        alive = Q(last_heartbeat_at__gte=offline_cutoff())
        live = queryset.filter(revoked_at__isnull=True)
        return live.filter(alive) if value == "online" else live.exclude(alive)
