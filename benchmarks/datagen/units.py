"""The heavy part, run in worker processes: for each run its specification (`build_spec`,
as `_create_one` builds it), its row, its outbox message and, when it succeeded, its
result; for a gated release the gate's verdict (`releases_app.services.gate_verdict._gate`, as
`release_conclude` computes it). Each batch is written with COPY in its own transaction."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from types import SimpleNamespace
from typing import Any

import psycopg

from benchmarks.datagen.pgcopy import Rows, copy_rows
from benchmarks.datagen.plan import RunPlan
from benchmarks.datagen.results import arm_shapes, result_payload, result_row
from benchmarks_app.models import OutboxMessage, Run, RunResult
from benchmarks_app.results_check import check_outcome
from benchmarks_app.selectors import ReleaseGateInput
from benchmarks_app.spec_build import build_spec
from contracts_app.models import ContractVersion
from releases_app.services.gate_verdict import _gate
from worker import workloads
from worker.spec import RUN_TASK_NAME

_CONNECTION: psycopg.Connection[Any] | None = None


@contextmanager
def _workloads_read_once() -> Iterator[None]:
    """`build_spec` reads the lane's prompt set for its version, re-parsing the JSONL each
    time (~6 ms a run; the API's run creation pays it too). The files don't change while
    a batch is built, so it reads each once; what `build_spec` gets is the same."""
    original = workloads.load_workload
    workloads.load_workload = cache(original)
    try:
        yield
    finally:
        workloads.load_workload = original


@dataclass
class Unit:
    """The runs of one release (its gate needs them together), or a few standalone runs."""

    runs: list[RunPlan]
    release_id: int | None = None
    gated: bool = False
    measurement: dict[str, Any] = field(default_factory=dict)


@dataclass
class UnitsDone:
    gates: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    runs: int = 0
    results: int = 0
    samples: int = 0
    validated: int = 0
    payload_bytes: int = 0


def _version(v: Any) -> ContractVersion:
    return ContractVersion(
        pk=v.id, route_id=v.route_id, number=v.number, digest=v.stored.digest, document=v.stored.document
    )


def _note(at: Any, event: str, detail: str) -> dict[str, Any]:
    return {"at": at.isoformat(), "attempt": 1, "event": event, "detail": detail}


def run_rows(run: RunPlan, spec: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Run row and its OutboxMessage row, as `_create_one` and the lifecycle leave them."""
    total = 2 * len(spec["load"]["levels"]) * spec["load"]["requests_per_level"]
    history = [_note(run.created_at, "queued", f"to {run.queue}")]
    worker = run.worker
    if run.started_at is not None and worker is not None:
        history.append(_note(run.started_at, "started", f"on worker {worker.name} (#{worker.id})"))
    done = {"queued": 0, "succeeded": total}.get(run.state, rng.randint(0, total - 1))
    if run.state == "cancelled" and run.started_at is None:
        done = 0
    if run.state == "succeeded" and worker is not None:
        history.append(
            _note(run.finished_at, "succeeded", f"result from worker {worker.name} (#{worker.id})")
        )
    elif run.state in ("failed", "timed_out", "cancelled"):
        history.append(_note(run.finished_at, run.state, run.last_error))
    row = {
        "id": run.id,
        "route_id": run.route_id,
        "release_id": run.release_id,
        "lane": run.lane,
        "baseline_version_id": run.baseline.id,
        "candidate_version_id": run.candidate.id,
        "engine_kind": run.engine_kind,
        "endpoints": run.endpoints,
        "target_worker_id": run.target_worker_id,
        "queue": run.queue,
        "state": run.state,
        "attempt": 1,
        "worker_id": worker.id if worker else None,
        "spec": spec,
        "progress_done": done,
        "progress_total": total,
        "last_error": run.last_error,
        # Finished runs: nothing is waiting for a worker and no phase is current.
        "waiting_reason": "",
        "waiting_since": None,
        "phase": "",
        "phase_since": None,
        "history": history,
        "created_by_id": run.created_by,
        "created_at": run.created_at,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
    }
    # Cancelled while still queued: the relay discarded its message instead of publishing it.
    unsent = run.state == "cancelled" and run.started_at is None and rng.random() < 0.5
    sent_at = run.created_at + timedelta(milliseconds=rng.uniform(20, 400))
    limits = spec["limits"]
    outbox = {
        "id": run.id,
        "run_id": run.id,
        "attempt": 1,
        "task_name": RUN_TASK_NAME,
        "queue": run.queue,
        "task_id": f"run-{run.id}-attempt-1",
        "payload": spec,
        "soft_time_limit_s": limits["soft_time_limit_s"],
        "time_limit_s": limits["time_limit_s"],
        "created_at": run.created_at,
        "published_at": None if unsent else sent_at,
        "publish_count": 0 if unsent else 1,
        "discarded_at": run.finished_at if unsent else None,
        "tries": 0 if unsent else 1,
        "next_try_at": None,
        "last_error": "",
    }
    return row, outbox


def _spec(run: RunPlan) -> dict[str, Any]:
    return build_spec(
        run_id=run.id,
        attempt=1,
        route_slug=run.route,
        release_id=run.release_id,
        lane=run.lane,
        baseline=_version(run.baseline),
        candidate=_version(run.candidate),
        engine_kind=run.engine_kind,
        endpoints=run.endpoints,
        overrides={},
    )


def _required(run: RunPlan) -> float:
    """The largest speed-up the candidate's contract asks for."""
    improve = run.candidate.stored.document.get("measurement", {}).get("improve") or []
    return max((float(i["min_ratio"]) for i in improve), default=1.2)


def build_units(units: list[Unit], validate_every: int) -> tuple[Rows, UnitsDone]:
    """Rows for a batch of units, and what the main process needs back."""
    done = UnitsDone()
    rows: Rows = {Run: [], OutboxMessage: [], RunResult: []}
    with _workloads_read_once():
        for unit in units:
            _build_unit(unit, validate_every, rows, done)
    return rows, done


def _build_unit(unit: Unit, validate_every: int, rows: Rows, done: UnitsDone) -> None:
    """One release's runs (then its gate) or a few standalone runs."""
    payloads = {}
    for run in unit.runs:
        rng = random.Random(run.id)
        spec = _spec(run)
        run_row, outbox = run_rows(run, spec, rng)
        rows[Run].append(run_row)
        rows[OutboxMessage].append(outbox)
        done.runs += 1
        if not run.has_result:
            continue
        assert run.worker is not None and run.started_at is not None and run.finished_at is not None
        methods = {"baseline": run.baseline.speculation, "candidate": run.candidate.speculation}
        payload = result_payload(
            spec,
            shapes=arm_shapes(spec, methods, run.intent, seed=run.id),
            hardware=run.worker.hardware,
            started=run.started_at,
            intent=run.intent,
            engine_versions={
                "baseline": run.baseline.stored.document["target"].get("engine_version"),
                "candidate": run.candidate.stored.document["target"].get("engine_version"),
            },
        )
        check = validate_every > 0 and run.id % validate_every == 0
        if check:  # the app's own upload check: the same run, its spec, the harness models
            check_outcome(run=Run(pk=run.id, spec=spec), attempt=1, payload=payload)
            done.validated += 1
        row = result_row(
            run_id=run.id,
            attempt=1,
            worker_id=run.worker.id,
            payload=payload,
            received_at=run.finished_at,
            check=check,
        )
        rows[RunResult].append(row)
        payloads[run.id] = (run.lane, payload)
        done.results += 1
        done.samples += sum(
            len(lv["requests"]) for arm in ("baseline", "candidate") for lv in payload[arm]["levels"]
        )
        done.payload_bytes += len(row["payload"])
    if unit.gated and unit.release_id is not None:
        inputs = ReleaseGateInput(runs=[], harness=dict(payloads.values()))
        release = SimpleNamespace(
            pk=unit.release_id, candidate_version=SimpleNamespace(document={"measurement": unit.measurement})
        )
        gated = _gate(inputs, release)  # type: ignore[arg-type]
        done.gates[unit.release_id] = gated


def _connection(conninfo: str) -> psycopg.Connection[Any]:
    global _CONNECTION
    if _CONNECTION is None or _CONNECTION.closed:
        _CONNECTION = psycopg.connect(conninfo, application_name=f"specpact-datagen-{os.getpid()}")
    return _CONNECTION


def write_units(args: tuple[str, list[Unit], int]) -> UnitsDone:
    """One batch, built and written (the pool's task)."""
    conninfo, units, validate_every = args
    rows, done = build_units(units, validate_every)
    conn = _connection(conninfo)
    with conn.transaction():
        for model in (Run, OutboxMessage, RunResult):
            copy_rows(conn, model, rows[model])
    return done


def close_connection() -> None:
    global _CONNECTION
    if _CONNECTION is not None:
        _CONNECTION.close()
        _CONNECTION = None
