"""The releases' filters, one set for `GET /api/v1/releases/` and the releases page."""

from __future__ import annotations

import django_filters

from contracts_app.document.schema import ROUTE_HELP, ROUTE_PATTERN
from kernel.filtersets import ChoiceInFilter, pattern_filter
from releases_app.choices import ReleaseState
from releases_app.models import Release


class ReleaseFilterSet(django_filters.FilterSet):
    route = pattern_filter("route__slug", pattern=ROUTE_PATTERN, message=ROUTE_HELP, help_text="route slug")
    state = ChoiceInFilter(
        field_name="state",
        choices=ReleaseState.choices,
        empty_label="any state",
        help_text="state, or several separated by commas",
    )

    class Meta:
        model = Release
        fields: list[str] = []
