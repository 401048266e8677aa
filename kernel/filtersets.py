"""What every app's `filtersets.py` shares: filters for slugs and comma lists, and how a
page applies a FilterSet. The API applies them through DRF's filter backend
(`kernel.api.filters.FilterBackend`, the default in settings), which answers a bad value with a
ValidationError, i.e. a problem+json 400 naming the parameter (`kernel.api.problems`)."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any
from urllib.parse import urlencode

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db.models import QuerySet
from django.http import HttpRequest
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from kernel.api.safety import INT64_MAX  # the largest a PostgreSQL bigint (every id) holds
from kernel.widgets import PlainWidgets

# One renderer for every form that uses it: Django's engine behind it is built once.
PLAIN_WIDGETS = PlainWidgets()


class ChoiceInFilter(django_filters.BaseInFilter, django_filters.ChoiceFilter):
    """One value or several separated by commas (`state=active,awaiting_review`), each one
    of `choices`; OpenAPI shows an array of the enum, comma-separated (style=form)."""


# PostgreSQL refuses a UTC offset of 16 hours or more ("time zone displacement out of range").
_MAX_OFFSET = timedelta(hours=16)


@extend_schema_field(OpenApiTypes.INT)
class IdFilter(django_filters.NumberFilter):
    """A row id: a positive whole number (django-filter's NumberFilter takes decimals) that
    a bigint holds: a larger one is a 400 naming the parameter, not a database error."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", INT64_MAX)
        super().__init__(*args, **kwargs)


class DatabaseDateTimeField(django_filters.fields.IsoDateTimeField):
    """An ISO 8601 time the database can compare with: an offset PostgreSQL accepts
    (under ±16:00) and a time that stays within Python's years 1-9999 once in UTC
    (`9999-12-31T23:59:59-14:00` is year 10000 there, an OverflowError)."""

    def to_python(self, value: Any) -> Any:
        parsed = super().to_python(value)
        if parsed is None:
            return None
        offset = parsed.utcoffset()
        if offset is not None and abs(offset) >= _MAX_OFFSET:
            raise ValidationError("the UTC offset must be under ±16:00", code="invalid")
        try:
            parsed.astimezone(UTC)
        except OverflowError:
            raise ValidationError(
                "outside the times the database holds (years 1-9999, UTC)", code="invalid"
            ) from None
        return parsed


class DatabaseDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = DatabaseDateTimeField


def pattern_filter(
    field_name: str, *, pattern: str, message: str, max_length: int = 64, **kwargs: Any
) -> django_filters.CharFilter:
    """A value of a known shape (a route slug: `contracts_app.document.schema.ROUTE_PATTERN`),
    so a typo is named with `message` instead of matching nothing."""
    validator = RegexValidator(pattern, message)
    return django_filters.CharFilter(
        field_name=field_name, max_length=max_length, validators=[validator], **kwargs
    )


class PageFilterForm(forms.Form):
    """A list page's filter form (a FilterSet's `Meta.form`): its inputs and selects drawn
    in Python (`kernel.widgets.PlainWidgets`), the same HTML as Django's templates."""

    default_renderer = PLAIN_WIDGETS


def page_queryset(filterset: django_filters.FilterSet) -> QuerySet[Any]:
    """What a page lists: filtered when every value is good; the whole list when one is
    bad (the page names the bad value beside its field and drops the filters: a page
    never fails on a query string)."""
    if filterset.is_bound and not filterset.is_valid():
        return filterset.queryset.all()
    return filterset.qs


def page_filter_query(request: HttpRequest, filterset: django_filters.FilterSet) -> str:
    """The filters in force as a query string, for the page's pagination links ('' when none)."""
    if not filterset.is_bound or not filterset.is_valid():
        return ""
    return urlencode({k: v for k, v in request.GET.items() if k in filterset.filters and v})
