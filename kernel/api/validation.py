"""A request body through its serializer: the validated data, or the 400 problem that
names each field (DRF's ValidationError, rendered by kernel/api/problems.py)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request


def validated(serializer_class: Any, request: Request | Any) -> dict[str, Any]:
    """`request` is a DRF request (its body is validated) or the data itself."""
    data = request.data if isinstance(request, Request) else request
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
