"""Management commands that change things run inside a request context of their own, so
the audit events one run records share one id (`cmd:<name>:<hex>`) like a request's."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from kernel.context import command_context


class ContextCommand(BaseCommand):
    def execute(self, *args: Any, **options: Any) -> str | None:
        with command_context(type(self).__module__.rsplit(".", 1)[-1]):
            return super().execute(*args, **options)
