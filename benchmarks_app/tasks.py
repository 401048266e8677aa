"""Control-plane tasks, run by the project's Celery worker and scheduled by beat
(CELERY_BEAT_SCHEDULE in specpact/settings.py): the outbox relay, the lost-run sweep and
the raw-samples prune. Each is safe to run concurrently with itself (row locks with SKIP
LOCKED), so an overlapping tick does no harm."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from benchmarks_app.services.outbox import outbox_relay
from benchmarks_app.services.retention import raw_samples_prune
from benchmarks_app.services.sweep import runs_sweep

RELAY_TASK = "benchmarks_app.relay_outbox"
SWEEP_TASK = "benchmarks_app.sweep_runs"
PRUNE_TASK = "benchmarks_app.prune_raw_samples"


@shared_task(name=RELAY_TASK, ignore_result=True)
def relay_outbox_task() -> dict[str, Any]:
    report = outbox_relay()
    return {"published": report.published, "discarded": report.discarded, "failed": report.failed}


@shared_task(name=SWEEP_TASK, ignore_result=True)
def sweep_runs_task() -> dict[str, Any]:
    report = runs_sweep()
    return {"requeued": report.requeued, "failed": report.failed, "timed_out": report.timed_out}


@shared_task(name=PRUNE_TASK, ignore_result=True)
def prune_raw_samples_task() -> dict[str, Any]:
    report = raw_samples_prune()
    return {"results": report.results, "samples": report.samples, "more": report.more}
