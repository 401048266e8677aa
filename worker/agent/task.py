"""The benchmark task: read the spec, claim the run, benchmark, upload the result.

Every way out reports to the control plane in words, except the ones where the run is
no longer this task's to report (a 409 on claim: finished, cancelled, another attempt)."""

from __future__ import annotations

import logging
import os
import random
import time
import traceback
from typing import Any

from billiard.exceptions import SoftTimeLimitExceeded
from celery import Task
from celery.exceptions import Reject

from worker.agent.celery_app import app
from worker.agent.client import ApiClient, ApiError, Refused, Transient, with_backoff
from worker.agent.credentials import Credentials, credentials_path, state_dir
from worker.agent.execute import RunCancelled, execute
from worker.agent.heartbeat import stop_agent
from worker.agent.state import AgentState
from worker.agent.workloads import WorkloadRefused, workload_file
from worker.spec import RUN_TASK_NAME, RunSpec, SpecRefused, parse_spec

log = logging.getLogger("specpact.worker.task")

# Celery-level retries, only after the in-task upload retries ran out (a control plane
# down for minutes): the saved result is uploaded again, the benchmark is not rerun.
UPLOAD_RETRIES = 8


def _agent() -> tuple[ApiClient, AgentState]:
    # The state folder also holds the workload cache (worker/agent/workloads.py).
    home = state_dir()
    credentials = Credentials.load(credentials_path(home))
    if credentials is None:
        raise RuntimeError(f"this worker is not registered: no credentials in {home}")
    return ApiClient(credentials.url, credentials.token), AgentState(home)


def _retry_countdown(task: Task) -> float:
    """Exponential backoff with jitter across Celery retries (30 s to ~30 min)."""
    return random.uniform(30, 120) * 2 ** min(task.request.retries, 4)


def _report_failure(client: ApiClient, run_id: int, attempt: int, kind: str, reason: str) -> None:
    try:
        with_backoff(lambda: client.fail(run_id, attempt, kind, reason), tries=4)
    except Refused as exc:
        log.info("run %s attempt %s: failure not recorded (%s)", run_id, attempt, exc.detail)
    except ApiError as exc:
        log.error("run %s attempt %s: could not report failure %r: %s", run_id, attempt, reason, exc)


# Unchanged progress is still sent this often: the answer is also how a cancel arrives.
PROGRESS_KEEPALIVE_S = 5.0


def _progress_reporter(client: ApiClient, spec: RunSpec) -> Any:
    last: dict[str, Any] = {"sent": None, "at": 0.0}

    def report(done: int, total: int, phase: str = "") -> None:
        now = time.monotonic()
        phase = phase or last.get("phase", "")
        if last["sent"] == (done, total, phase) and now - last["at"] < PROGRESS_KEEPALIVE_S:
            return
        last.update(sent=(done, total, phase), at=now, phase=phase)
        try:
            client.progress(spec.run_id, spec.attempt, done, total, phase=phase)
        except Refused as exc:
            raise RunCancelled(exc.detail) from exc
        except ApiError as exc:  # progress is best effort; the result is what counts
            log.warning("progress of run %s not recorded: %s", spec.run_id, exc)

    return report


def _upload(client: ApiClient, state: AgentState, spec: RunSpec, outcome: dict[str, Any]) -> str:
    try:
        body = with_backoff(lambda: client.upload_result(spec.run_id, outcome))
    except Refused as exc:
        state.forget_result(spec.run_id, spec.attempt)
        return f"result not taken: {exc.detail}"
    except Transient:
        raise
    except ApiError as exc:
        # The control plane found the result impossible: say so on the run.
        state.forget_result(spec.run_id, spec.attempt)
        _report_failure(
            client, spec.run_id, spec.attempt, "error", f"the control plane refused the result: {exc}"
        )
        return "result refused"
    state.forget_result(spec.run_id, spec.attempt)
    return "uploaded" if body.get("created") else "already uploaded"


def _workload(client: ApiClient, state: AgentState, spec: RunSpec) -> Any:
    """The run's registered workload, cached and checked (WorkloadRefused if it can't be had)."""

    def fetch() -> Any:
        return workload_file(
            spec, home=state.home, download=lambda: client.workload(spec.run_id, spec.attempt)
        )

    try:
        return with_backoff(fetch, tries=4)
    except Refused as exc:
        raise RunCancelled(exc.detail) from exc
    except Transient:
        raise
    except ApiError as exc:
        raise WorkloadRefused(
            f"the control plane would not send workload {spec.workload.name}: {exc}"
        ) from exc


@app.task(
    name=RUN_TASK_NAME, bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=UPLOAD_RETRIES
)
def run_benchmark_task(self: Task, spec_json: str) -> dict[str, Any]:
    client, state = _agent()
    try:
        return _run(self, client, state, spec_json)
    finally:
        client.close()


def _run(task: Task, client: ApiClient, state: AgentState, spec_json: str) -> dict[str, Any]:
    try:
        spec = parse_spec(spec_json)
    except SpecRefused as exc:
        log.error("refusing a run specification: %s", exc.reason)
        if exc.run_id is not None and exc.attempt is not None:
            _report_failure(client, exc.run_id, exc.attempt, "refused", exc.reason)
        return {"outcome": "refused", "reason": exc.reason}
    try:
        with_backoff(lambda: client.start(spec.run_id, spec.attempt), tries=4)
    except Refused as exc:
        log.info("run %s attempt %s not started: %s", spec.run_id, spec.attempt, exc.detail)
        return {"outcome": "skipped", "reason": exc.detail}
    except Transient as exc:
        # The control plane is unreachable: the message goes back to the queue for later
        # rather than being acknowledged with the run never started.
        raise task.retry(exc=exc, countdown=_retry_countdown(task)) from exc
    except ApiError as exc:
        if exc.status == 401:
            # This worker was revoked: the message goes back for another worker, and the
            # agent (this pool process's parent) shuts down.
            stop_agent(f"run {spec.run_id}: the worker token was refused", pid=os.getppid())
            raise Reject(f"worker token refused: {exc.detail}", requeue=True) from exc
        log.error("run %s attempt %s is not this worker's to run: %s", spec.run_id, spec.attempt, exc)
        return {"outcome": "not ours", "reason": exc.detail}
    state.set_current(spec.run_id, spec.attempt, pid=os.getpid())
    keep_current = False
    try:
        outcome = state.saved_result(spec.run_id, spec.attempt)
        if outcome is None:
            local = _workload(client, state, spec) if spec.workload.digest is not None else None
            outcome = execute(spec, _progress_reporter(client, spec), workload_file=local)
            state.save_result(spec.run_id, spec.attempt, outcome)
        return {"outcome": _upload(client, state, spec, outcome)}
    except Transient as exc:
        countdown = _retry_countdown(task)
        log.warning("control plane unreachable uploading run %s; retrying in %.0f s", spec.run_id, countdown)
        # Still this worker's run: heartbeats keep saying so until the saved result is in
        # (whichever pool process takes the retry).
        keep_current = True
        state.set_current(spec.run_id, spec.attempt, pid=None)
        raise task.retry(exc=exc, countdown=countdown) from exc
    except RunCancelled as exc:
        return {"outcome": "cancelled", "reason": str(exc)}
    except WorkloadRefused as exc:
        log.error("run %s: %s", spec.run_id, exc.reason)
        _report_failure(client, spec.run_id, spec.attempt, "refused", exc.reason)
        return {"outcome": "refused", "reason": exc.reason}
    except SoftTimeLimitExceeded:
        limit = spec.limits.soft_time_limit_s
        _report_failure(
            client, spec.run_id, spec.attempt, "timeout", f"the run exceeded its time limit of {limit} s"
        )
        return {"outcome": "timed_out"}
    except Exception as exc:
        log.error("run %s failed:\n%s", spec.run_id, traceback.format_exc())
        _report_failure(client, spec.run_id, spec.attempt, "error", f"{type(exc).__name__}: {exc}")
        return {"outcome": "failed", "reason": str(exc)}
    finally:
        if not keep_current:
            state.clear_current()
