"""Control-plane tasks of the release flow: a release's conclusion once its last run has
ended (sent by `releases_app.receivers` after the run's commit), and the periodic pass
that concludes the releases left behind (scheduled by beat, specpact/settings.py)."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError
from django.db import OperationalError as DatabaseOperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError

from benchmarks_app.broker import publisher_app
from releases_app.choices import ReleaseState
from releases_app.models import Release
from releases_app.services.gate_verdict import release_conclude, releases_conclude_left_behind

log = logging.getLogger(__name__)

CONCLUDE_TASK = "releases_app.conclude_left_behind"
CONCLUDE_RELEASE_TASK = "releases_app.conclude_release"

# What goes away on its own: the database restarting or failing over, the broker (a retry
# is published through it) briefly gone. Anything else is a bug the periodic pass won't
# fix either, so it is not retried here.
TRANSIENT_ERRORS = (DatabaseOperationalError, InterfaceError, BrokerOperationalError)

# One try to publish: with the broker down, the result upload that committed the run must
# not wait for it; the periodic pass concludes the release instead.
_ONE_TRY: dict[str, float] = {"max_retries": 0, "interval_start": 0}


@shared_task(name=CONCLUDE_TASK, ignore_result=True)
def conclude_left_behind_task() -> dict[str, Any]:
    return {"tried": releases_conclude_left_behind()}


@shared_task(
    name=CONCLUDE_RELEASE_TASK,
    ignore_result=True,
    # Acknowledged when done, and put back when its process dies mid-way (kill -9, OOM):
    # a redelivered conclusion is harmless (the advisory lock and the state re-check in
    # `release_conclude` make a second one a no-op).
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
)
def release_conclude_task(release_id: int) -> str:
    """Gate, drift re-probe and transition of a release whose runs have all ended; what it
    did, in words. Quiet when the release is gone or no longer benchmarking."""
    if not Release.objects.filter(pk=release_id, state=ReleaseState.BENCHMARKING).exists():
        return f"release {release_id} is gone or no longer benchmarking: nothing to do"
    try:
        return release_conclude(release_id=release_id)
    except Release.DoesNotExist:  # deleted since the check above
        return f"release {release_id} is gone: nothing to do"


def release_conclude_enqueue(*, release_id: int) -> None:
    """Send the release's conclusion to the control-plane worker (call after commit).
    Never raises: the request that ended the run has committed and answers; a release
    whose message was lost is concluded by the periodic pass."""
    try:
        publisher_app().send_task(
            CONCLUDE_RELEASE_TASK,
            args=[release_id],
            queue=settings.CONTROL_PLANE_QUEUE,
            routing_key=settings.CONTROL_PLANE_QUEUE,
            retry=True,
            retry_policy=_ONE_TRY,
        )
    except Exception:  # the periodic pass concludes it; the run's own commit stands
        log.exception("sending release %s's conclusion failed; the periodic pass concludes it", release_id)
