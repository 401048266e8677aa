"""Answers built as plain rows instead of through a serializer's per-field walk, for the
hot read endpoints (issue 26, point 1): the serializer stays the schema (drf-spectacular
reads it) and a test holds each row equal to what it makes of the same objects. What every
such row needs of DRF is here, once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone
from rest_framework import ISO_8601, serializers
from rest_framework.settings import api_settings


def drf_times() -> Callable[[Any], Any]:
    """A time as DRF's DateTimeField writes it (ISO 8601 in the current time zone, UTC as
    `Z`), with that zone looked up once, not per value; anything but an aware time in the
    ISO format goes through the field itself."""
    zone = timezone.get_current_timezone() if settings.USE_TZ else None
    field = serializers.DateTimeField(default_timezone=zone)
    iso = str(getattr(field, "format", api_settings.DATETIME_FORMAT)).lower() == ISO_8601

    def time(value: Any) -> Any:
        if value is None:
            return None
        if iso and zone is not None and isinstance(value, datetime) and timezone.is_aware(value):
            try:
                text = value.astimezone(zone).isoformat()
            except OverflowError:
                return field.to_representation(value)  # which words it
            return text[:-6] + "Z" if text.endswith("+00:00") else text
        return field.to_representation(value)

    return time
