from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination, LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from kernel.api.safety import INT64_MAX
from kernel.errors import DomainError, FieldError


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


class NewestFirstCursorPagination(CursorPagination):
    """Newest first by id, with an opaque `?cursor=` (DRF's CursorPagination): a page
    boundary is an id, not an offset, so rows inserted while a client pages never shift a
    row into the next page twice or out of the walk. `?limit=` sets the page size (clamped
    to API_MAX_PAGE_SIZE). The envelope is {next, previous, results}: no count, which
    would cost a full scan of the audit log on every page."""

    ordering = "-id"
    page_size_query_param = "limit"
    cursor_query_description = "The `next` or `previous` link's cursor, as given (opaque)."

    @property
    def max_page_size(self) -> int:  # type: ignore[override]  # DRF declares a class attribute
        return int(settings.API_MAX_PAGE_SIZE)

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            cursor = None
        else:
            # DRF takes the position (a row id here) as any text: `p=abc`, `p=` or `p=1e5`
            # would reach the query as a ValueError, a huge one as a bigint overflow; no
            # link of ours carries anything but an id from 1 to bigint's largest.
            if cursor is None or cursor.position is None or _is_row_id(cursor.position):
                return cursor
        raise DomainError(
            "The cursor is not one this server gave out; start again without it.",
            code="invalid_cursor",
            errors=[FieldError("cursor", "not a cursor from a next or previous link")],
        )


def _is_row_id(position: object) -> bool:
    text = str(position)  # the stubs say int; DRF hands over the cursor's text as it came
    return text.isascii() and text.isdigit() and len(text) <= 19 and 1 <= int(text) <= INT64_MAX


def paginate_by_cursor(
    request: Request, view: APIView, queryset: QuerySet[Any], serializer_class: type[BaseSerializer[Any]]
) -> Response:
    """One page of `queryset`, newest first, in the cursor envelope (next, previous, results)."""
    paginator = NewestFirstCursorPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)
