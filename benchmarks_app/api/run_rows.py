"""Runs as the API answers them, without DRF's per-field walk: `RunOut` and `RunDetailOut`
stay the schema (drf-spectacular reads them, and `tests/benchmarks/test_run_rows.py`
holds these rows equal to what they make of the same runs), while a page of 50 runs is
built here from one query that reads only the columns they show.

What the serializers cost (issue 26, point 1; cProfile through the test client, small
scale): loading each run with its route, two versions and two workers as model instances
(~5 instances and 8 JSON columns decoded per run) and DRF resolving 23 fields per row was
~80% of the list's CPU. Here the run is one instance with only its own shown columns, the
route's slug and the versions' numbers are joined in as annotations, and a row is a dict
in the serializer's field order (the JSON renderer then writes the same bytes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks_app.models import Run
from kernel.api.rows import drf_times


def run_out_row(
    run: Run, *, detail: bool = False, _time: Callable[[Any], Any] | None = None
) -> dict[str, Any]:
    """One run of `benchmarks_app.selectors.runs_shown`, equal to `RunOut(run).data`
    (`RunDetailOut`'s with `detail`)."""
    a: Any = run  # the annotations
    _time = _time or drf_times()
    step = run.step
    row = {
        "id": run.pk,
        "route": a.route_slug,
        "release": run.release_id,
        "advice": run.advice_id,
        "lane": run.lane,
        "baseline_version": a.baseline_number,
        "candidate_version": a.candidate_number,
        "engine_kind": run.engine_kind,
        "queue": run.queue,
        "state": run.state,
        "attempt": run.attempt,
        "worker": run.worker_id,
        "progress": {
            "done": run.progress_done,
            "total": run.progress_total,
            "percent": run.progress_percent,
            "step": step.as_dict() if step is not None else None,
            "words": run.progress_words,
        },
        "last_error": run.last_error,
        "waiting_reason": run.waiting_reason,
        "waiting_since": _time(run.waiting_since),
        "phase": run.phase,
        "phase_since": _time(run.phase_since),
        "history": run.history,
        "created_at": _time(run.created_at),
        "started_at": _time(run.started_at),
        "finished_at": _time(run.finished_at),
        "has_result": bool(a.result_exists),
    }
    if detail:
        row["spec"] = run.spec
        row["samples_pruned_at"] = _time(a.samples_pruned_at)
    return row


def run_out_rows(runs: Any) -> list[dict[str, Any]]:
    time = drf_times()
    return [run_out_row(run, _time=time) for run in runs]
