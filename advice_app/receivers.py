"""advice_app's answers to what other apps announce."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import receiver

from advice_app import tasks
from benchmarks_app.signals import run_finished


@receiver(run_finished, dispatch_uid="advice_app.record_on_run_finished")
def record_on_run_finished(sender: Any, *, run_id: int, advice_id: int | None = None, **_: Any) -> None:
    if advice_id is not None:
        # Looked up when called, so that the fast suite can run the task inline (tests/conftest.py).
        transaction.on_commit(partial(tasks.advice_run_finished_enqueue, run_id=run_id))
