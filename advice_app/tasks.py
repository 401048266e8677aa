"""Control-plane tasks of advice runs: recording a measured batch and dispatching the next
(sent by `advice_app.receivers` after the run's commit: the advisor's bootstrap never runs
in the request that uploaded the result), and the periodic pass that takes up the batches
whose message was lost (scheduled by beat, specpact/settings.py)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from advice_app.services import advice_run_finished, advice_runs_left_behind
from benchmarks_app.broker import publisher_app
from kernel.task_retry import redelivered_task_options

log = logging.getLogger(__name__)

RUN_FINISHED_TASK = "advice_app.run_finished"
LEFT_BEHIND_TASK = "advice_app.left_behind"
_ONE_TRY: dict[str, float] = {"max_retries": 0, "interval_start": 0}


@shared_task(
    name=RUN_FINISHED_TASK,
    ignore_result=True,
    # Redelivery is harmless: a run's batch is recorded only while its entry is pending.
    **redelivered_task_options(max_retries=8, retry_backoff_max=300),
)
def advice_run_finished_task(run_id: int) -> str:
    return advice_run_finished(run_id=run_id)


@shared_task(name=LEFT_BEHIND_TASK, ignore_result=True)
def advice_left_behind_task() -> dict[str, int]:
    return {"taken_up": advice_runs_left_behind()}


def advice_run_finished_enqueue(*, run_id: int) -> None:
    """Send the step to the control-plane worker (after commit). Never raises: the run's
    own commit stands, and the periodic pass takes up a step whose message was lost."""
    try:
        publisher_app().send_task(
            RUN_FINISHED_TASK,
            args=[run_id],
            queue=settings.CONTROL_PLANE_QUEUE,
            routing_key=settings.CONTROL_PLANE_QUEUE,
            retry=True,
            retry_policy=_ONE_TRY,
        )
    except Exception:  # the periodic pass takes it up
        log.exception("sending advice step for run %s failed; the periodic pass takes it up", run_id)
