"""Control-plane tasks of the release flow: a release's conclusion once its last run has
ended (sent by `releases_app.receivers` after the run's commit), and the periodic pass
that concludes the releases left behind (scheduled by beat, specpact/settings.py)."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings

from benchmarks_app.broker import publisher_app
from kernel.task_retry import redelivered_task_options
from releases_app.choices import ReleaseState
from releases_app.models import Release
from releases_app.services.gate_verdict import release_conclude, releases_conclude_left_behind

log = logging.getLogger(__name__)

CONCLUDE_TASK = "releases_app.conclude_left_behind"
CONCLUDE_RELEASE_TASK = "releases_app.conclude_release"

# One try to publish: with the broker down, the result upload that committed the run must
# not wait for it; the periodic pass concludes the release instead.
_ONE_TRY: dict[str, float] = {"max_retries": 0, "interval_start": 0}


@shared_task(name=CONCLUDE_TASK, ignore_result=True)
def conclude_left_behind_task() -> dict[str, Any]:
    return {"tried": releases_conclude_left_behind()}


@shared_task(
    name=CONCLUDE_RELEASE_TASK,
    ignore_result=True,
    # A redelivered conclusion is harmless (the advisory lock and the state re-check in
    # `release_conclude` make a second one a no-op).
    **redelivered_task_options(max_retries=8, retry_backoff_max=300),
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
