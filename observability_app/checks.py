"""Start-up checks of the observability settings (`manage.py check`, runserver, migrate;
gunicorn and the Celery worker run the same test when they start tracing)."""

from __future__ import annotations

from typing import Any

from django.core import checks

from observability_app.tracing import configuration_problems


@checks.register()
def check_tracing(**_: Any) -> list[checks.CheckMessage]:
    """With SPECPACT_TRACING on, a tracing setting that can't work is an error, named."""
    return [checks.Error(problem, id="observability.E001") for problem in configuration_problems()]
