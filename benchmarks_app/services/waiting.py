"""Runs that no online worker can serve: said at creation and on every sweep, in words
(which engine, which pool, which workers exist and why each doesn't fit), and failed with
that reason once they have waited RUN_WORKER_WAIT_MAX_S, so that a release, and the
pipeline waiting on it, learns promptly that nothing will run it.

Who fits is `benchmarks_app.worker_fit`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from benchmarks_app.choices import RunState
from benchmarks_app.models import OutboxMessage, Run, Worker
from benchmarks_app.signals import announce_run_finished
from benchmarks_app.worker_fit import waiting_reason


def _fleet() -> list[Worker]:
    return list(Worker.objects.order_by("revoked_at", "id"))


def run_mark_waiting(*, run: Run, now: datetime | None = None) -> str:
    """At creation (inside the creating transaction): say why the run cannot start, if so.
    The caller saves nothing more; returns the reason ("" when a worker fits)."""
    now = now or timezone.now()
    reason = waiting_reason(run, _fleet(), now)
    if reason:
        run.waiting_reason, run.waiting_since = reason, now
        run.note("waiting for a worker", reason)
        run.save(update_fields=["waiting_reason", "waiting_since", "history"])
    return reason


def runs_waiting_sweep(*, now: datetime | None = None) -> tuple[list[int], list[int]]:
    """Every queued run: (re)state why no worker fits, clear it when one does, and fail
    those that waited longer than RUN_WORKER_WAIT_MAX_S. Returns (waiting ids, failed ids)."""
    now = now or timezone.now()
    queued = list(Run.objects.filter(state=RunState.QUEUED).order_by("id").values_list("id", flat=True))
    if not queued:
        return [], []
    fleet = _fleet()
    bound = timedelta(seconds=settings.RUN_WORKER_WAIT_MAX_S)
    waiting: list[int] = []
    failed: list[int] = []
    for run_id in queued:
        with transaction.atomic():
            run = (
                Run.objects.select_for_update(skip_locked=True)
                .filter(pk=run_id, state=RunState.QUEUED)
                .first()
            )
            if run is None:
                continue
            reason = waiting_reason(run, fleet, now)
            if not reason:
                if run.waiting_reason:
                    run.waiting_reason, run.waiting_since = "", None
                    run.note("a worker fits", "a fitting worker is online now")
                    run.save(update_fields=["waiting_reason", "waiting_since", "history"])
                continue
            since = run.waiting_since or now
            if now - since >= bound:
                _fail_unserved(run, reason, since, now)
                failed.append(run.pk)
                continue
            if reason != run.waiting_reason:
                if not run.waiting_reason:
                    run.note("waiting for a worker", reason)
                run.waiting_reason, run.waiting_since = reason, since
                run.save(update_fields=["waiting_reason", "waiting_since", "history"])
            waiting.append(run.pk)
    return waiting, failed


def _fail_unserved(run: Run, reason: str, since: datetime, now: datetime) -> None:
    waited = int((now - since).total_seconds())
    run.state = RunState.FAILED
    run.finished_at = now
    run.last_error = (
        f"no worker could serve it for {waited} s (the bound is RUN_WORKER_WAIT_MAX_S = "
        f"{settings.RUN_WORKER_WAIT_MAX_S} s): {reason}"
    )
    run.note(RunState.FAILED, run.last_error)
    run.save(update_fields=["state", "finished_at", "last_error", "history"])
    # Its dispatch, if still waiting for the broker, is never sent.
    OutboxMessage.objects.filter(run=run).filter(published_at__isnull=True, discarded_at__isnull=True).update(
        discarded_at=now
    )
    announce_run_finished(run=run)
