"""Reads: querysets for the API and pages, with their relations loaded up front."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import F, Prefetch, QuerySet

from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.choices import ACTIVE_STATES, RunState
from benchmarks_app.models import Run, RunResult, Worker
from benchmarks_app.result_digest import result_digest
from benchmarks_app.worker_fit import waiting_reason
from kernel.errors import NotFound


def worker_list() -> QuerySet[Worker]:
    return Worker.objects.with_current_run().order_by("revoked_at", "name", "id")


def worker_get(worker_id: int) -> Worker:
    worker = worker_list().filter(pk=worker_id).first()
    if worker is None:
        raise NotFound(f"No worker {worker_id}.")
    return worker


def workers_for_page() -> QuerySet[Worker]:
    """`worker_list` for the workers page: each worker's running runs with only what the
    page shows of them (id, route slug, lane, progress), not their specifications."""
    running = (
        Run.objects.filter(state=RunState.RUNNING)
        .select_related("route")
        .only("id", "worker", "route", "route__slug", "lane", "progress_done", "progress_total", "started_at")
        .order_by("-started_at")
    )
    return (
        worker_list()
        .prefetch_related(None)
        .prefetch_related(Prefetch("runs", queryset=running, to_attr="active_runs"))
    )


def recent_runs(runs: QuerySet[Run]) -> QuerySet[Run]:
    """`run_list`'s runs (scoped) as the workers page lists them: the columns of its
    table, the route's slug, the versions' numbers and the worker's name."""
    return (
        runs.select_related(None)
        .select_related("route", "baseline_version", "candidate_version", "worker")
        .only(
            "id",
            "release",
            "lane",
            "state",
            "progress_done",
            "progress_total",
            "queue",
            "created_at",
            "route__slug",
            "baseline_version__number",
            "candidate_version__number",
            "worker__name",
        )
    )


def run_list() -> QuerySet[Run]:
    """Newest first; the query's filters are `benchmarks_app.filtersets.RunFilterSet`. A list
    shows no specification (the detail does), so it is not read."""
    return Run.objects.for_listing().defer("spec")


def run_get(run_id: int) -> Run:
    run = Run.objects.with_relations().filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"No run {run_id}.")
    return run


# The run's own columns that RunOut shows or its progress and words read.
_SHOWN_COLUMNS = (
    "id",
    "release",
    "advice",
    "lane",
    "engine_kind",
    "queue",
    "state",
    "attempt",
    "worker",
    "progress_done",
    "progress_total",
    "progress_steps",
    "last_error",
    "waiting_reason",
    "waiting_since",
    "phase",
    "phase_since",
    "history",
    "created_at",
    "started_at",
    "finished_at",
)


def runs_shown(runs: QuerySet[Run], *, detail: bool = False) -> QuerySet[Run]:
    """`runs` (`RunQuerySet.for_listing`'s, which annotates `result_exists`; filtered,
    scoped, any order) reading only what the API's run rows show
    (`benchmarks_app.api.run_rows`): no related instance, no result, no specification
    unless `detail`."""
    columns = (*_SHOWN_COLUMNS, "spec") if detail else _SHOWN_COLUMNS
    shaped = (
        runs.select_related(None)
        .only(*columns)
        .annotate(
            route_slug=F("route__slug"),
            baseline_number=F("baseline_version__number"),
            candidate_number=F("candidate_version__number"),
        )
    )
    if detail:
        shaped = shaped.annotate(samples_pruned_at=F("result__samples_pruned_at"))
    return shaped


def run_for_detail(run_id: int) -> Run:
    """The run as the API's detail shows it (`benchmarks_app.api.run_rows`): its own
    columns, its route's slug, its versions' numbers and its result's pruning time, none
    of them loaded as instances (not the result's samples, which run_get reads)."""
    try:
        # get(), not first(): no ORDER BY for one primary key.
        return runs_shown(Run.objects.for_listing(), detail=True).get(pk=run_id)
    except Run.DoesNotExist:
        raise NotFound(f"No run {run_id}.") from None


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


ARMS = ("baseline", "candidate")


@dataclass(frozen=True)
class ReleaseGateInput:
    """A release's benchmark as the gate and the release page read it: its runs (oldest
    first, with their states and errors) and, per lane of a succeeded run, the stored
    result: `harness` (lane → the uploaded result, each arm's raw harness result in it,
    what the gate bootstraps; only when read with samples) and `aggregates` (lane → arm →
    level aggregates, what pages chart)."""

    runs: list[Run]
    harness: dict[str, Any] = field(default_factory=dict)
    aggregates: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    # lane → when its result's raw samples were pruned by the retention setting (read with
    # samples only): such a lane has aggregates but nothing in `harness` to bootstrap.
    pruned: dict[str, datetime] = field(default_factory=dict)

    @property
    def ended(self) -> bool:
        """Every run has ended (and there is at least one)."""
        return bool(self.runs) and not any(r.state in ACTIVE_STATES for r in self.runs)

    @property
    def unsucceeded(self) -> list[Run]:
        return [r for r in self.runs if r.state != RunState.SUCCEEDED]

    def arm(self, arm: str) -> dict[str, Any]:
        """lane → `arm`'s harness result, in the runs' order (`gate_input_from_harness`)."""
        return {lane: results[arm] for lane, results in self.harness.items()}

    def arm_aggregates(self, arm: str) -> dict[str, list[dict[str, Any]]]:
        """lane → `arm`'s level aggregates (the release page's figures)."""
        return {lane: arms[arm] for lane, arms in self.aggregates.items()}

    def judged(self) -> list[dict[str, Any]]:
        """What the gate judges, one entry per result in `harness`: run, lane, result and
        the digest of the result as stored and read (`results_digests` recomputes it)."""
        return [
            {
                "run": r.pk,
                "lane": r.lane,
                "result": r.result.pk,
                "digest": "sha256:" + result_digest(r.result.payload),
            }
            for r in self.runs
            if _succeeded(r) and self.harness.get(r.lane) is r.result.payload
        ]


def results_digests(run_ids: list[int]) -> dict[int, str]:
    """run id → `sha256:` digest of its stored result, as `ReleaseGateInput.judged` takes it;
    the results are read one at a time (each may hold 100,000 requests). A result whose raw
    samples were pruned can't be hashed again: its digest is the one taken at upload (the
    column, which `run.result_accepted` in the chain recorded too)."""
    rows = RunResult.objects.filter(run_id__in=run_ids).values_list(
        "run_id", "samples_pruned_at", "digest", "payload"
    )
    return {
        run_id: "sha256:" + (digest if pruned_at is not None else result_digest(payload))
        for run_id, pruned_at, digest, payload in rows.iterator(chunk_size=1)
    }


def release_gate_input(
    release_id: int, *, samples: bool = True, runs: list[Run] | None = None
) -> ReleaseGateInput:
    """The gate's input for a release: its runs, and per lane of a succeeded run its stored
    result. With `samples` (the gate): the raw harness results too, read with the runs in
    one query. Without (pages): only the aggregates, in one query after the runs (`runs`:
    the release's runs where the caller has read them already), and a second that only
    results stored before aggregates were cost."""
    if samples:
        read = list(runs_of_release(release_id)) if runs is None else runs
        succeeded = [r for r in read if _succeeded(r)]
        pruned = {
            r.lane: r.result.samples_pruned_at for r in succeeded if r.result.samples_pruned_at is not None
        }
        harness = {r.lane: r.result.payload for r in succeeded if r.lane not in pruned}
        aggregates = {r.lane: _stored_aggregates(r.result.aggregates, r.result.payload) for r in succeeded}
        return ReleaseGateInput(read, harness, aggregates, pruned)
    read = list(Run.objects.filter(release_id=release_id).order_by("id")) if runs is None else runs
    done = {r.pk: r.lane for r in read if _succeeded(r)}
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    if not done:
        return ReleaseGateInput(read)
    missing = []
    for run_id, stored in RunResult.objects.filter(run_id__in=done).values_list("run_id", "aggregates"):
        if stored:
            out[done[run_id]] = _stored_aggregates(stored, None)
        else:
            missing.append(run_id)
    if missing:
        for run_id, payload in RunResult.objects.filter(run_id__in=missing).values_list("run_id", "payload"):
            out[done[run_id]] = _stored_aggregates({}, payload)
    return ReleaseGateInput(read, aggregates=out)


def _succeeded(run: Run) -> bool:
    return run.state == RunState.SUCCEEDED


def _stored_aggregates(stored: Any, payload: Any) -> dict[str, list[dict[str, Any]]]:
    """arm → level aggregates as stored with the result; a result stored before aggregates
    were (the migration gave it `{}`) is aggregated from its raw samples."""
    if stored:
        return {arm: list(stored.get(arm) or []) for arm in ARMS}
    return {arm: aggregate_result((payload or {}).get(arm) or {}) for arm in ARMS}
