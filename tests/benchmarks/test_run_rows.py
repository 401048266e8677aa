"""The runs API builds its rows without DRF's field walk (benchmarks_app/api/run_rows.py);
RunOut and RunDetailOut stay its schema, and these rows must be what they make of the
same runs, key for key and in their order."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from benchmarks_app.api.run_rows import run_out_row, run_out_rows
from benchmarks_app.api.serializers import RunDetailOut, RunOut
from benchmarks_app.models import Run
from benchmarks_app.selectors import run_for_detail, run_get, run_list, runs_shown
from benchmarks_app.services.lifecycle import run_fail, run_progress, run_result_submit, run_start
from tests.hardening.outcomes import outcome_for
from tests.support.workers import SMALL_LOAD, openai_run, register
from worker.spec import RunSpec

pytestmark = pytest.mark.django_db

NO_BROKER = "redis://127.0.0.1:9/0"


def _runs(versions: Any) -> list[Run]:
    """One run in each shape a row can take: queued, running part-way with a phase,
    failed, and succeeded with a result."""
    made = []
    for name in ("queued", "running", "failed", "done"):
        registration = register(f"w-{name}")
        with override_settings(CELERY_BROKER_URL=NO_BROKER):
            run = openai_run(
                versions, worker=registration.worker, overrides={**SMALL_LOAD, "warmup_requests": 0}
            )
        made.append(run)
        if name == "queued":
            continue
        run_start(run_id=run.pk, worker=registration.worker, attempt=1)
        if name == "running":
            run_progress(
                run_id=run.pk, worker=registration.worker, attempt=1, done=1, total=8, phase="benchmarking"
            )
        elif name == "failed":
            run_fail(run_id=run.pk, worker=registration.worker, attempt=1, kind="error", reason="it broke")
        else:
            spec = RunSpec.model_validate(Run.objects.get(pk=run.pk).spec)
            payload = json.loads(json.dumps(outcome_for(spec, tokens=8)))
            run_result_submit(run_id=run.pk, worker=registration.worker, attempt=1, payload=payload)
    return made


def _json(data: Any) -> str:
    return json.dumps(data, default=str)


def test_the_list_rows_are_what_run_out_makes_of_the_same_runs(versions: Any) -> None:
    _runs(versions)
    expected = RunOut(run_list().order_by("-id"), many=True).data
    rows = run_out_rows(runs_shown(run_list()).order_by("-id"))
    assert len(rows) == 4
    assert [list(r) for r in rows] == [list(e) for e in expected]  # the keys, in order
    assert _json(rows) == _json(expected)


def test_a_detail_row_is_what_run_detail_out_makes_of_the_run(versions: Any) -> None:
    for run in _runs(versions):
        expected = RunDetailOut(run_get(run.pk)).data
        row = run_out_row(run_for_detail(run.pk), detail=True)
        assert list(row) == list(expected)
        assert _json(row) == _json(expected)


def test_the_rows_keep_every_field_the_serializers_declare() -> None:
    assert list(RunOut().fields) == [*RunOut.Meta.fields]
    assert list(RunDetailOut().fields) == [*RunDetailOut.Meta.fields]


def test_the_api_answers_the_rows(versions: Any, viewer: Any) -> None:
    made = _runs(versions)
    client = APIClient()
    client.force_login(viewer)
    listed = client.get("/api/v1/runs/").json()["results"]
    assert [r["id"] for r in listed] == sorted((r.pk for r in made), reverse=True)
    assert listed == json.loads(_json(RunOut(run_list().order_by("-id"), many=True).data))
    for run in made:
        detail = client.get(f"/api/v1/runs/{run.pk}/").json()
        assert detail == json.loads(_json(RunDetailOut(run_get(run.pk)).data))
    assert client.get("/api/v1/runs/999999/").status_code == 404
