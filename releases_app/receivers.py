"""releases_app's answers to what other apps announce."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import receiver

from benchmarks_app.signals import run_finished
from live_app.signals import acceptance_dropped
from releases_app import tasks
from releases_app.services.acceptance_drop import release_propose_for_drop


@receiver(run_finished, dispatch_uid="releases_app.conclude_on_run_finished")
def conclude_on_run_finished(sender: Any, *, run_id: int, release_id: int | None, **_: Any) -> None:
    """The conclusion (the gate's bootstrap, the endpoints' drift re-probe) runs on the
    control-plane worker, never in the request that uploaded the result."""
    if release_id is not None:
        # Looked up when called, so that the fast suite can run the task inline (tests/conftest.py).
        transaction.on_commit(partial(tasks.release_conclude_enqueue, release_id=release_id))


@receiver(acceptance_dropped, dispatch_uid="releases_app.propose_rollback_on_acceptance_drop")
def propose_rollback_on_acceptance_drop(sender: Any, *, alert_id: int, **_: Any) -> None:
    release_propose_for_drop(alert_id=alert_id)
