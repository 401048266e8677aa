from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView


class ClampedLimitOffsetPagination(LimitOffsetPagination):
    """DRF's limit/offset with `?limit=` clamped to API_MAX_PAGE_SIZE: an unbounded limit
    would be a LIMIT beyond bigint (a database error) or a page of every row. An offset
    beyond the rows is an empty page (DRF checks it against the count before slicing)."""

    @property
    def max_limit(self) -> int:  # type: ignore[override]  # DRF declares a class attribute
        return int(settings.API_MAX_PAGE_SIZE)


def paginate(
    request: Request, view: APIView, queryset: QuerySet[Any], serializer_class: type[BaseSerializer[Any]]
) -> Response:
    """One page of `queryset` in DRF's limit/offset envelope (count, next, previous, results)."""
    paginator = ClampedLimitOffsetPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)
