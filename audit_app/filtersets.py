"""The audit trail's filters, one set for `GET /api/v1/audit/` and the audit page."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q

from audit_app.models import AuditEvent, AuditEventQuerySet
from contracts_app.document.schema import ROUTE_HELP, ROUTE_PATTERN
from kernel.filtersets import DatabaseDateTimeFilter, pattern_filter

_WHEN = forms.DateTimeInput(attrs={"type": "datetime-local"})


class AuditEventFilterSet(django_filters.FilterSet):
    action = django_filters.CharFilter(
        method="filter_action", max_length=64, help_text="an action, or a prefix: `release` → release.*"
    )
    route = pattern_filter("route", pattern=ROUTE_PATTERN, message=ROUTE_HELP, help_text="route slug")
    actor = django_filters.CharFilter(
        method="filter_actor",
        max_length=160,
        help_text="`user:alice`, `token:<prefix>`, `worker:gpu-1` or a username",
    )
    object = django_filters.CharFilter(
        method="filter_object", max_length=265, help_text="`type:id` (`release:12`) or a type"
    )
    since = DatabaseDateTimeFilter(
        field_name="at", lookup_expr="gte", widget=_WHEN, help_text="ISO 8601 time, inclusive"
    )
    until = DatabaseDateTimeFilter(
        field_name="at", lookup_expr="lt", widget=_WHEN, help_text="ISO 8601 time, exclusive"
    )

    class Meta:
        model = AuditEvent
        fields: list[str] = []

    def filter_action(self, queryset: AuditEventQuerySet, name: str, value: str) -> AuditEventQuerySet:
        """Dotted prefixes: `release` is every `release.*` action."""
        return queryset.filter(Q(action=value) | Q(action__startswith=f"{value}."))

    def filter_actor(self, queryset: AuditEventQuerySet, name: str, value: str) -> AuditEventQuerySet:
        """The label as recorded (`user:alice`, `token:ab12cd34`, `system`), or a bare username."""
        return queryset.filter(
            Q(actor_label=value) | Q(actor_label=f"user:{value}") | Q(actor__username=value)
        )

    def filter_object(self, queryset: AuditEventQuerySet, name: str, value: str) -> AuditEventQuerySet:
        obj_type, _, obj_id = value.partition(":")
        queryset = queryset.filter(object_type=obj_type)
        return queryset.filter(object_id=obj_id) if obj_id else queryset
