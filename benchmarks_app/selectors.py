"""Reads: querysets for the API and pages, with their relations loaded up front."""

from __future__ import annotations

from django.db.models import QuerySet

from benchmarks_app.models import Run, Worker
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


def unserved_queues(runs: list[Run]) -> set[str]:
    """The queues of `runs` still waiting that no online worker consumes: those runs will
    not start until a fitting worker registers (one query, and only when something waits)."""
    waiting = {run.queue for run in runs if run.state == "queued"}
    if not waiting:
        return set()
    served = {queue for worker in Worker.objects.online() for queue in worker.queues}
    return waiting - served
