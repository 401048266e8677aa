"""The periodic sweep: runs whose worker went silent, was revoked, restarted without them,
or ran past the hard time limit. A lost run is requeued once (a new attempt) on another
online worker that fits, else it fails with the reason in words. Nothing stays `running`
for a worker that is gone."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from benchmarks_app.choices import RunState
from benchmarks_app.models import Run, Worker
from benchmarks_app.models.workers import offline_cutoff
from benchmarks_app.services.outbox import outbox_enqueue
from benchmarks_app.services.waiting import runs_waiting_sweep
from benchmarks_app.signals import announce_run_finished
from benchmarks_app.spec_build import build_spec

# After the hard limit the worker's process is killed; its report may be in flight.
_TIMEOUT_GRACE_S = 120


@dataclass
class SweepReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    timed_out: list[int] = field(default_factory=list)
    # Queued runs no online worker can serve (still waiting, or failed past the bound).
    waiting: list[int] = field(default_factory=list)


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "never"


def _lost_reason(run: Run, worker: Worker, now: datetime) -> str | None:
    who = f"worker {worker.name} (#{worker.pk})"
    if worker.revoked_at is not None:
        return f"{who} was revoked while running attempt {run.attempt}"
    if worker.last_heartbeat_at is None or worker.last_heartbeat_at < offline_cutoff(now):
        return (
            f"{who} stopped heartbeating during attempt {run.attempt} (last heartbeat "
            f"{_when(worker.last_heartbeat_at)}, offline after {settings.WORKER_OFFLINE_AFTER_S} s)"
        )
    # A worker that restarted (same credentials) heartbeats again but no longer runs it.
    grace = timedelta(seconds=settings.WORKER_OFFLINE_AFTER_S)
    reported = worker.reported_run or {}
    started = run.started_at or now
    if now - started > grace and (reported.get("id"), reported.get("attempt")) != (run.pk, run.attempt):
        return (
            f"{who} is alive but no longer running attempt {run.attempt} (it reports {reported or 'no run'})"
        )
    return None


def _past_deadline(run: Run, now: datetime) -> bool:
    limit = int(run.spec.get("limits", {}).get("time_limit_s", 0))
    return bool(
        limit and run.started_at and now > run.started_at + timedelta(seconds=limit + _TIMEOUT_GRACE_S)
    )


def _replacement(run: Run, lost: Worker) -> Worker | None:
    """Another online worker that can run the same engine and served the run's queue,
    or is of the same hardware class (so the numbers stay comparable), least busy first."""
    busy = set(Run.objects.filter(state=RunState.RUNNING).values_list("worker_id", flat=True))
    candidates = [
        w
        for w in Worker.objects.online().exclude(pk=lost.pk).order_by("id")
        if run.engine_kind in w.capabilities
        and (run.queue in w.queues or w.hardware_class == lost.hardware_class)
        and run.spec.get("spec_version") in w.spec_versions
    ]
    idle = [w for w in candidates if w.pk not in busy]
    ranked = idle or candidates
    return ranked[0] if ranked else None


def _requeue(run: Run, reason: str, to: Worker) -> None:
    run.attempt += 1
    run.state = RunState.QUEUED
    run.worker = None
    run.started_at = None
    run.progress_done, run.progress_steps = 0, {}
    run.queue = to.own_queue
    # Sent to the replacement's own queue, so it is pinned to it: no other worker may claim it.
    run.target_worker = to
    run.last_error = f"{reason}; requeued as attempt {run.attempt} on worker {to.name} (#{to.pk})"
    run.spec = build_spec(
        run_id=run.pk,
        attempt=run.attempt,
        route_slug=run.route.slug,
        release_id=run.release_id,
        lane=run.lane,
        baseline=run.baseline_version,
        candidate=run.candidate_version,
        engine_kind=run.engine_kind,
        endpoints=run.endpoints,
        overrides=_overrides_of(run.spec),
        documents=run.arm_documents,
    )
    run.note("requeued", run.last_error)
    run.save()
    outbox_enqueue(run=run)


def _overrides_of(spec: dict) -> dict:
    """Keep what the first attempt was asked for (levels, counts, limits, seed)."""
    load = spec["load"]
    levels = load["levels"]
    return {
        "concurrency": [lv["concurrency"] for lv in levels if lv.get("concurrency")] or None,
        "rate": [lv["rate"] for lv in levels if lv.get("rate")] or None,
        "requests_per_level": load["requests_per_level"],
        "warmup_requests": load["warmup_requests"],
        "max_tokens": spec["max_tokens"],
        "seed": spec["seed"],
        "time_limit_s": spec["limits"]["time_limit_s"],
    }


def _end(run: Run, state: str, reason: str, now: datetime) -> None:
    run.state = state
    run.finished_at = now
    run.last_error = reason
    run.note(state, reason)
    run.save(update_fields=["state", "finished_at", "last_error", "history"])
    announce_run_finished(run=run)


def runs_sweep(*, now: datetime | None = None) -> SweepReport:
    now = now or timezone.now()
    report = SweepReport()
    ids = list(Run.objects.filter(state=RunState.RUNNING).values_list("id", flat=True))
    for run_id in ids:
        with transaction.atomic():
            run = (
                Run.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("worker", "route", "baseline_version", "candidate_version")
                .filter(pk=run_id, state=RunState.RUNNING)
                .first()
            )
            if run is None or run.worker is None:
                continue
            if _past_deadline(run, now):
                limit = run.spec["limits"]["time_limit_s"]
                _end(run, RunState.TIMED_OUT, f"no answer within the hard time limit of {limit} s", now)
                report.timed_out.append(run.pk)
                continue
            reason = _lost_reason(run, run.worker, now)
            if reason is None:
                continue
            other = _replacement(run, run.worker) if run.attempt < settings.RUN_MAX_ATTEMPTS else None
            if other is not None:
                _requeue(run, reason, other)
                report.requeued.append(run.pk)
            else:
                why = (
                    "no other fitting worker is online"
                    if run.attempt < settings.RUN_MAX_ATTEMPTS
                    else (f"attempt {run.attempt} was the last allowed")
                )
                _end(run, RunState.FAILED, f"{reason}; not retried: {why}", now)
                report.failed.append(run.pk)
    _reroute_from_revoked(report, now)
    waiting, unserved = runs_waiting_sweep(now=now)
    report.waiting += waiting
    report.failed += unserved
    return report


def _reroute_from_revoked(report: SweepReport, now: datetime) -> None:
    """Queued runs waiting in the own queue of a worker that was revoked: nobody will
    ever take them from there."""
    revoked = {
        f"worker.{pk}": pk
        for pk in Worker.objects.filter(revoked_at__isnull=False).values_list("pk", flat=True)
    }
    ids = list(
        Run.objects.filter(state=RunState.QUEUED, queue__in=list(revoked)).values_list("id", flat=True)
    )
    for run_id in ids:
        with transaction.atomic():
            run = (
                Run.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("route", "baseline_version", "candidate_version")
                .filter(pk=run_id, state=RunState.QUEUED)
                .first()
            )
            if run is None:
                continue
            gone = Worker.objects.get(pk=revoked[run.queue])
            reason = f"worker {gone.name} (#{gone.pk}) was revoked before it started attempt {run.attempt}"
            other = _replacement(run, gone) if run.attempt < settings.RUN_MAX_ATTEMPTS else None
            if other is not None:
                _requeue(run, reason, other)
                report.requeued.append(run.pk)
            else:
                _end(run, RunState.FAILED, f"{reason}; no other fitting worker is online", now)
                report.failed.append(run.pk)
