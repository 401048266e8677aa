"""Filters for `GET /api/v1/tokens/`."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts_app.models import ApiToken
from accounts_app.roles import Role


class TokenFilterSet(django_filters.FilterSet):
    role = django_filters.ChoiceFilter(field_name="role", choices=Role.choices, help_text="the token's role")
    state = django_filters.ChoiceFilter(
        method="filter_state",
        choices=[("active", "active"), ("expired", "expired"), ("revoked", "revoked")],
        help_text="as `state` in the response",
    )
    user = django_filters.CharFilter(
        field_name="user__username", max_length=150, help_text="the owner's username (admins see everyone's)"
    )

    class Meta:
        model = ApiToken
        fields: list[str] = []

    def filter_state(self, queryset: QuerySet[ApiToken], name: str, value: str) -> QuerySet[ApiToken]:
        """The same rule as `ApiToken.state`: revoked first, then expiry."""
        if value == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        expired = Q(expires_at__isnull=False, expires_at__lte=timezone.now())
        live = queryset.filter(revoked_at__isnull=True)
        return live.filter(expired) if value == "expired" else live.exclude(expired)
