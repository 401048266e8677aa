"""Control-plane tasks of the release flow, scheduled by beat (specpact/settings.py)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from releases_app.services.gate_verdict import releases_conclude_left_behind

CONCLUDE_TASK = "releases_app.conclude_left_behind"


@shared_task(name=CONCLUDE_TASK, ignore_result=True)
def conclude_left_behind_task() -> dict[str, Any]:
    return {"tried": releases_conclude_left_behind()}
