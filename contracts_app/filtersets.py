"""Filters for routes (`GET /api/v1/routes/`; the routes overview extends them with
release filters in dashboard_app) and for a route's versions
(`GET /api/v1/routes/{slug}/versions/`). They filter any Route queryset, with or without
the overview's annotations, in the same one query."""

from __future__ import annotations

import json

import django_filters
from django import forms
from django.core.validators import RegexValidator
from django.db.models import QuerySet
from django.db.models.fields.json import KeyTextTransform, KeyTransform

from contracts_app.document.engines import METHODS
from contracts_app.document.schema import LANE_PATTERN
from contracts_app.models import ContractVersion, Route

_METHODS = [(m, m) for m in METHODS]
_LANE = RegexValidator(LANE_PATTERN, "a lane is lowercase letters, digits, '_' or '-'")


class RouteFilterSet(django_filters.FilterSet):
    method = django_filters.ChoiceFilter(
        field_name="active_version__document__speculation__method",
        choices=_METHODS,
        empty_label="any",
        help_text="the active version's speculation method",
    )
    lane = django_filters.CharFilter(
        method="filter_lane",
        max_length=63,
        validators=[_LANE],
        widget=forms.TextInput(attrs={"list": "known-lanes"}),
        help_text="a lane the active version allows",
    )

    class Meta:
        model = Route
        fields: list[str] = []

    def filter_lane(self, queryset: QuerySet[Route], name: str, value: str) -> QuerySet[Route]:
        """The allowed lanes are a JSON list in the document. JSON `contains` is
        PostgreSQL-only and the demo runs on SQLite, so this matches the quoted name in the
        list's JSON text: exact, because a lane (LANE_PATTERN) has no quote or backslash."""
        # KT("a__b") would read `active_version` as the JSON column: spell the path out.
        allowed = KeyTextTransform("allowed", KeyTransform("lanes", "active_version__document"))
        return queryset.alias(allowed_lanes_json=allowed).filter(
            allowed_lanes_json__contains=json.dumps(value)
        )


class VersionFilterSet(django_filters.FilterSet):
    digest = django_filters.CharFilter(
        field_name="digest",
        max_length=71,
        validators=[RegexValidator(r"^sha256:[0-9a-f]{64}$", "a digest is sha256: and 64 hex digits")],
        help_text="`sha256:…` of the canonical document: is this document already a version?",
    )
    method = django_filters.ChoiceFilter(
        field_name="document__speculation__method", choices=_METHODS, help_text="speculation method"
    )

    class Meta:
        model = ContractVersion
        fields: list[str] = []
