"""Reads: querysets for the API and pages, with their relations loaded up front."""

from __future__ import annotations

from django.db.models import QuerySet

from benchmarks_app.models import Run, Worker
from benchmarks_app.worker_fit import waiting_reason
from specpact.errors import NotFound


def worker_list() -> QuerySet[Worker]:
    return Worker.objects.with_current_run().order_by("revoked_at", "name", "id")


def worker_get(worker_id: int) -> Worker:
    worker = worker_list().filter(pk=worker_id).first()
    if worker is None:
        raise NotFound(f"No worker {worker_id}.")
    return worker


def run_list() -> QuerySet[Run]:
    """Newest first; the query's filters are `benchmarks_app.filtersets.RunFilterSet`. A list
    shows no specification (the detail does), so it is not read."""
    return Run.objects.for_listing().defer("spec")


def run_get(run_id: int) -> Run:
    run = Run.objects.with_relations().filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"No run {run_id}.")
    return run


def runs_of_release(release_id: int) -> QuerySet[Run]:
    return Run.objects.with_relations().filter(release_id=release_id).order_by("id")


def runs_waiting_for_worker(*, release_id: int) -> QuerySet[Run]:
    """A release's queued runs that no online worker can serve (`services.waiting`)."""
    return Run.objects.filter(release_id=release_id, state="queued").exclude(waiting_reason="").order_by("id")


def waiting_reasons(runs: list[Run]) -> dict[int, str]:
    """run id → why no worker can serve it, for the queued ones among `runs`, judged now
    against the fleet (one query, and only when something waits): a page shows it from
    its first render and drops it as soon as a fitting worker is online."""
    queued = [run for run in runs if run.state == "queued"]
    if not queued:
        return {}
    fleet = list(Worker.objects.order_by("revoked_at", "id"))
    reasons = {run.pk: waiting_reason(run, fleet) for run in queued}
    return {pk: reason for pk, reason in reasons.items() if reason}
