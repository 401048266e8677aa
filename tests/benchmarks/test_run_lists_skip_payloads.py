"""Run lists answer `has_result` without reading any result: at issue 16's scale a result
is ~190 KB of samples and ~30 KB of aggregates, and a page of 50 runs read them all."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from benchmarks_app.services.lifecycle import run_result_submit, run_start
from tests.hardening.outcomes import outcome_for
from tests.support.workers import SMALL_LOAD, openai_run, register
from worker.spec import RunSpec

pytestmark = pytest.mark.django_db

NO_BROKER = "redis://127.0.0.1:9/0"


def _run(versions: Any, name: str, *, with_result: bool) -> Any:
    registration = register(name)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        run = openai_run(versions, worker=registration.worker, overrides={**SMALL_LOAD, "warmup_requests": 0})
    run_start(run_id=run.pk, worker=registration.worker, attempt=1)
    run.refresh_from_db()
    if with_result:
        outcome = outcome_for(RunSpec.model_validate(run.spec), tokens=8)
        run_result_submit(
            run_id=run.pk, worker=registration.worker, attempt=1, payload=json.loads(json.dumps(outcome))
        )
    return run


def _reads_a_result(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in captured.captured_queries
        if '"benchmarks_app_runresult"."payload"' in q["sql"]
        or '"benchmarks_app_runresult"."aggregates"' in q["sql"]
    ]


def test_the_run_list_says_which_runs_have_a_result_without_reading_one(versions: Any, viewer: Any) -> None:
    done = _run(versions, "w1", with_result=True)
    waiting = _run(versions, "w2", with_result=False)
    client = APIClient()
    client.force_login(viewer)
    with CaptureQueriesContext(connection) as captured:
        rows = client.get("/api/v1/runs/").json()["results"]
    assert {r["id"]: r["has_result"] for r in rows} == {done.pk: True, waiting.pk: False}
    assert _reads_a_result(captured) == []
    # Nor the versions' documents or the runs' specifications: a list shows neither.
    assert not [
        q for q in captured.captured_queries if '"contracts_app_contractversion"."document"' in q["sql"]
    ]
    assert not [q for q in captured.captured_queries if '"benchmarks_app_run"."spec"' in q["sql"]]
    # One run's detail still answers from its loaded result.
    assert client.get(f"/api/v1/runs/{done.pk}/").json()["has_result"] is True
    assert client.get(f"/api/v1/runs/{waiting.pk}/").json()["has_result"] is False


def test_the_workers_page_lists_runs_without_reading_their_results(versions: Any, viewer: Any) -> None:
    done = _run(versions, "w1", with_result=True)
    page = Client()
    page.force_login(viewer)
    with CaptureQueriesContext(connection) as captured:
        response = page.get("/workers/")
    assert response.status_code == 200 and f"run {done.pk}" in response.content.decode()
    assert _reads_a_result(captured) == []
