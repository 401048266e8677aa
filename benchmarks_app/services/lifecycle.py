"""A run's life as its worker reports it: claim (start), progress, failure, result.

Every call names the attempt it is about. A message redelivered after the run moved on
(finished, cancelled, requeued as a new attempt) is answered 409 with a code the worker
reads as "drop it quietly": nothing is counted twice.

Each step is an audit event by the worker's actor (`worker:<name>`), in the step's own
transaction: `run.started` (or `run.restarted`), `run.progress` at each (level, arm)
boundary, `run.failed`, `run.result_accepted` with the result's digest. Progress is
audited at the boundaries only, not at every report: a worker reports about twice a
second, every audit event takes the chain's one lock (audit_app/services.py), and the
boundaries are what say which arm ran which level when.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from audit_app.actors import Actor
from audit_app.services import audit_record
from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.choices import FINISHED_STATES, FailureKind, RunState
from benchmarks_app.models import Run, RunResult, Worker
from benchmarks_app.progress import step_begun, step_plan
from benchmarks_app.result_digest import canonical_json, result_digest, text_digest
from benchmarks_app.results_check import check_outcome
from benchmarks_app.signals import announce_run_finished
from kernel.errors import Conflict, Forbidden, NotFound
from worker.spec import ARMS, RunSpec


def _by_worker(run: Run, worker: Worker, after: dict[str, Any]) -> dict[str, Any]:
    """What every lifecycle event shares: the worker's actor, the run, its attempt."""
    return {
        "actor": Actor.worker(worker.name),
        "obj_type": "run",
        "obj_id": run.pk,
        "route": (run.spec or {}).get("route") or run.route.slug,  # the spec names it: no query
        "after": {"attempt": run.attempt, "worker": worker.pk, **after},
    }


def _locked(run_id: int) -> Run:
    run = Run.objects.select_for_update().filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"No run {run_id}.")
    return run


def _stale(run: Run, attempt: int) -> None:
    if run.attempt != attempt:
        raise Conflict(
            f"run {run.pk} is on attempt {run.attempt}; this message is for attempt {attempt}",
            code="stale_attempt",
        )


def _finished(run: Run) -> None:
    if run.state in FINISHED_STATES:
        raise Conflict(
            f"run {run.pk} is already {run.state}" + (f": {run.last_error}" if run.last_error else ""),
            code="run_finished",
        )


def _serves(worker: Worker, run: Run) -> bool:
    """May this worker take this queued run? Its message came through one of its queues."""
    return run.queue in worker.queues


def _pinned(worker: Worker, run: Run) -> None:
    """A run pinned to a worker (`target_worker`) is that worker's alone, whatever queue a
    message about it came through: the queue is only how it was delivered."""
    if run.target_worker_id is not None and run.target_worker_id != worker.pk:
        raise Forbidden(f"run {run.pk} is pinned to worker {run.target_worker_id}, not to worker {worker.pk}")


def _owner(worker: Worker, run: Run) -> None:
    _pinned(worker, run)
    if run.worker_id is not None and run.worker_id != worker.pk:
        raise Forbidden(f"run {run.pk} belongs to worker {run.worker_id}, not to worker {worker.pk}")
    if run.worker_id is None and not _serves(worker, run):
        raise Forbidden(f"run {run.pk} was sent to {run.queue}, which worker {worker.pk} does not serve")


@transaction.atomic
def run_start(*, run_id: int, worker: Worker, attempt: int) -> Run:
    """queued → running for this worker, by a conditional UPDATE. The same worker claiming
    its own running attempt again is a redelivery after its task process died: it starts
    over (progress reset); the result is still taken once."""
    run = _locked(run_id)
    # A stale or finished run first: a late redelivery anywhere is told to drop it.
    _stale(run, attempt)
    _finished(run)
    _owner(worker, run)
    now = timezone.now()
    if run.state == RunState.RUNNING:
        run.progress_done, run.progress_steps = 0, step_plan(run.spec, now)
        run.note("restarted", f"worker {worker.name} (#{worker.pk}) got the task again and starts over")
        run.save(update_fields=["progress_done", "progress_steps", "history"])
        audit_record(action="run.restarted", **_by_worker(run, worker, {"state": run.state}))
        return run
    claimed = Run.objects.filter(pk=run.pk, state=RunState.QUEUED, attempt=attempt).update(
        state=RunState.RUNNING,
        worker=worker,
        started_at=now,
        progress_done=0,
        progress_steps=step_plan(run.spec, now),
        waiting_reason="",
        waiting_since=None,
        phase="",
        phase_since=None,
    )
    if claimed != 1:  # unreachable under the row lock; kept as the claim's own guard
        raise Conflict(f"run {run.pk} could not be claimed", code="claim_lost")
    run.refresh_from_db()
    run.note("started", f"on worker {worker.name} (#{worker.pk})")
    run.save(update_fields=["history"])
    audit_record(action="run.started", **_by_worker(run, worker, {"state": run.state, "queue": run.queue}))
    return run


@transaction.atomic
def run_progress(*, run_id: int, worker: Worker, attempt: int, done: int, total: int, phase: str = "") -> Run:
    run = _locked(run_id)
    _owner(worker, run)
    _stale(run, attempt)
    _finished(run)  # a cancelled run answers 409 run_finished: the worker stops
    if run.state != RunState.RUNNING:
        raise Conflict(f"run {run.pk} has not been started", code="not_started")
    before = run.progress_done
    run.progress_total = max(total, run.progress_total, 1)
    run.progress_done = min(max(done, 0), run.progress_total)
    fields = ["progress_done", "progress_total"]
    if (begun := step_begun(run.progress_steps, run.progress_done, timezone.now())) is not None:
        run.progress_steps = begun
        fields.append("progress_steps")
    if phase and phase != run.phase:
        run.phase, run.phase_since = phase, timezone.now()
        fields += ["phase", "phase_since"]
    run.save(update_fields=fields)
    boundary = _boundary_crossed(run, before)
    if boundary is not None:
        audit_record(action="run.progress", **_by_worker(run, worker, boundary))
    return run


def _boundary_crossed(run: Run, before: int) -> dict[str, Any] | None:
    """The (level, arm) pieces completed when progress went from `before` to the run's
    count, if that crossed a piece's end: the worker counts each piece's requests
    (worker/agent/execute.py `execute`), so a piece ends at each multiple of
    requests_per_level, in the spec's order."""
    spec = run.spec or {}
    per_piece = int((spec.get("load") or {}).get("requests_per_level") or 0)
    if per_piece <= 0 or run.progress_done // per_piece <= before // per_piece:
        return None
    order = RunSpec.model_validate(spec).order()
    pieces = min(run.progress_done // per_piece, len(order))
    last, upcoming = order[pieces - 1], (order[pieces] if pieces < len(order) else None)
    return {
        "done": run.progress_done,
        "total": run.progress_total,
        "pieces_done": pieces,
        "pieces": len(order),
        "finished": {"level_index": last[0], "arm": last[1]},
        "next": {"level_index": upcoming[0], "arm": upcoming[1]} if upcoming else None,
        "phase": run.phase,
    }


def run_workload_check(*, run_id: int, worker: Worker, attempt: int) -> Run:
    """May this worker download the run's workload now? Only the worker that claimed the
    run, for its current attempt, while it runs (a read: nothing changes)."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"No run {run_id}.")
    _stale(run, attempt)
    _finished(run)
    if run.worker_id != worker.pk or run.state != RunState.RUNNING:
        raise Forbidden(f"run {run.pk} is not running on worker {worker.pk}")
    return run


_FAILURE_STATE = {
    FailureKind.ERROR: RunState.FAILED,
    FailureKind.REFUSED: RunState.FAILED,
    FailureKind.TIMEOUT: RunState.TIMED_OUT,
}


@transaction.atomic
def run_fail(*, run_id: int, worker: Worker, attempt: int, kind: str, reason: str) -> Run:
    """The worker could not finish (or start) the run; `reason` becomes last_error."""
    run = _locked(run_id)
    _owner(worker, run)
    _stale(run, attempt)
    _finished(run)
    run.state = _FAILURE_STATE[FailureKind(kind)]
    run.finished_at = timezone.now()
    run.worker = run.worker or worker
    run.last_error = reason.strip()[:4000] or f"worker {worker.pk} reported {kind} without a reason"
    run.note(run.state, run.last_error)
    run.save(update_fields=["state", "finished_at", "worker", "last_error", "history"])
    audit_record(
        action="run.failed",
        reason=run.last_error,
        **_by_worker(run, worker, {"state": run.state, "kind": kind}),
    )
    announce_run_finished(run=run)
    return run


def run_result_submit(
    *, run_id: int, worker: Worker, attempt: int, payload: dict[str, Any]
) -> tuple[RunResult, bool]:
    """(result, created). The same upload again answers the stored result (created False);
    another worker 403; a malformed or impossible result 400 (nothing stored); a result
    for an attempt or a run that moved on 409."""
    return _result_store(run_id=run_id, worker=worker, attempt=attempt, payload=payload, canonical=None)


def run_result_upload(
    *, run_id: int, worker: Worker, attempt: int, payload: dict[str, Any]
) -> tuple[RunResult, bool]:
    """`run_result_submit` for an upload (the view's): the payload is serialized once, to
    its canonical JSON, which gives the digest and is the text stored (jsonb keeps the
    same value whatever the key order or spacing), instead of walked for the digest and
    serialized again for the database. The same answers, the same stored row."""
    canonical = canonical_json(payload)
    return _result_store(run_id=run_id, worker=worker, attempt=attempt, payload=payload, canonical=canonical)


def _stored_payload(payload: dict[str, Any], canonical: str | None) -> Any:
    """On PostgreSQL, the canonical text cast to jsonb there (not a second json.dumps of
    the payload); elsewhere (SQLite, the embedded default) the payload for the field."""
    if canonical is None or connection.vendor != "postgresql":
        return payload
    return RawSQL("%s::jsonb", (canonical,))


@transaction.atomic
def _result_store(
    *, run_id: int, worker: Worker, attempt: int, payload: dict[str, Any], canonical: str | None
) -> tuple[RunResult, bool]:
    run = _locked(run_id)
    _pinned(worker, run)
    if run.worker_id != worker.pk:
        if run.worker_id is None:
            raise Conflict(f"run {run.pk} has not been started", code="not_started")
        raise Forbidden(f"run {run.pk} belongs to worker {run.worker_id}, not to worker {worker.pk}")
    digest = result_digest(payload) if canonical is None else text_digest(canonical)
    existing = RunResult.objects.filter(run=run).first()
    if existing is not None:
        if existing.attempt == attempt and existing.digest == digest:
            return existing, False
        raise Conflict(
            f"run {run.pk} already has a result (attempt {existing.attempt}); a different one is refused",
            code="result_exists",
        )
    _stale(run, attempt)
    check_outcome(run=run, attempt=attempt, payload=payload)
    _finished(run)
    try:
        with transaction.atomic():
            result = RunResult.objects.create(
                run=run,
                attempt=attempt,
                worker=worker,
                payload=_stored_payload(payload, canonical),
                digest=digest,
                aggregates={arm: aggregate_result(payload[arm]) for arm in ARMS},
            )
    except IntegrityError:  # the one-result-per-run constraint: a racing duplicate
        raise Conflict(f"run {run.pk} already has a result", code="result_exists") from None
    if canonical is None:
        result.payload = payload
    else:
        # The expression it was written with is no value to read: the field is left
        # deferred (read from the row if asked for). Not the parsed payload: the result and
        # its run point at each other, a cycle that would hold it until a full collection.
        del result.payload
    run.state = RunState.SUCCEEDED
    run.finished_at = timezone.now()
    run.progress_done = run.progress_total
    run.last_error = ""
    run.note("succeeded", f"result from worker {worker.name} (#{worker.pk})")
    run.save(update_fields=["state", "finished_at", "progress_done", "last_error", "history"])
    accepted = {"state": run.state, "result": result.pk, "digest": f"sha256:{digest}"}
    audit_record(action="run.result_accepted", **_by_worker(run, worker, accepted))
    announce_run_finished(run=run)
    return result, True
