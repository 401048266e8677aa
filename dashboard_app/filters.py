"""The routes overview's filters: the route filters of the API plus what the overview
knows from releases (the latest gate verdict, an open release). On the page a bad value
is named and the filters are dropped, never a 500."""

from __future__ import annotations

import django_filters
from django.db.models import Exists, OuterRef, QuerySet, Subquery

from contracts_app.filtersets import RouteFilterSet
from contracts_app.models import Route
from dashboard_app.selectors.overview import NOT_MEASURED
from kernel.filtersets import PageFilterForm
from releases_app.choices import OPEN_STATES, GateVerdict
from releases_app.models import Release


class OverviewFilterSet(RouteFilterSet):
    verdict = django_filters.ChoiceFilter(
        method="filter_verdict",
        choices=[*[(v, v) for v in GateVerdict.values], (NOT_MEASURED, "not measured")],
        empty_label="any",
        help_text=f"the latest gate verdict, or `{NOT_MEASURED}` for routes never gated",
    )
    pending = django_filters.ChoiceFilter(
        method="filter_pending",
        choices=[("yes", "with a pending release"), ("no", "without")],
        empty_label="any",
        help_text="`yes`: routes with an open release; `no`: without",
    )

    class Meta(RouteFilterSet.Meta):
        model = Route
        fields: list[str] = []
        form = PageFilterForm

    def filter_verdict(self, queryset: QuerySet[Route], name: str, value: str) -> QuerySet[Route]:
        gated = Release.objects.filter(route=OuterRef("pk"), gate_verdict__isnull=False)
        if value == NOT_MEASURED:
            return queryset.filter(~Exists(gated))
        latest = Subquery(gated.order_by("-id").values("gate_verdict")[:1])
        return queryset.alias(latest_gate_verdict=latest).filter(latest_gate_verdict=value)

    def filter_pending(self, queryset: QuerySet[Route], name: str, value: str) -> QuerySet[Route]:
        open_release = Exists(Release.objects.filter(route=OuterRef("pk"), state__in=OPEN_STATES))
        return queryset.filter(open_release if value == "yes" else ~open_release)
