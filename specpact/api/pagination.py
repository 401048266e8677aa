from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView


def paginate(
    request: Request, view: APIView, queryset: QuerySet[Any], serializer_class: type[BaseSerializer[Any]]
) -> Response:
    """One page of `queryset` in DRF's limit/offset envelope (count, next, previous, results)."""
    paginator = LimitOffsetPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)
