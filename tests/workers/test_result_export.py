"""A finished run's raw samples download as CSV, one row per request of each arm."""

from __future__ import annotations

import copy
import csv
import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from benchmarks_app.models import Run
from tests.workers.conftest import register
from tests.workers.test_runs_api import run  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def _finish(run: Run, outcome: dict[str, Any]) -> None:
    worker = APIClient(HTTP_AUTHORIZATION=f"Token {register('w1').token}")
    assert worker.post(f"/api/v1/runs/{run.pk}/start", {"attempt": 1}, format="json").status_code == 200
    payload = {**copy.deepcopy(outcome), "run_id": run.pk, "attempt": 1}
    assert worker.put(f"/api/v1/runs/{run.pk}/result", payload, format="json").status_code == 201


def test_a_runs_requests_download_as_csv(run: Run, outcome_template: dict[str, Any], viewer: Any) -> None:
    _finish(run, outcome_template)
    client = APIClient()
    client.force_login(viewer)
    response = client.get(f"/api/v1/runs/{run.pk}/result.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    expected = sum(
        len(level["requests"]) for arm in ("baseline", "candidate") for level in outcome_template[arm]["levels"]
    )
    assert len(rows) == expected
    assert {r["arm"] for r in rows} == {"baseline", "candidate"}
    first = outcome_template["baseline"]["levels"][0]["requests"][0]
    assert float(rows[0]["ttft_ms"]) == pytest.approx(first["ttft_ms"])
    assert int(rows[0]["output_tokens"]) == first["output_tokens"]


def test_no_csv_before_the_result(run: Run, viewer: Any) -> None:
    client = APIClient()
    client.force_login(viewer)
    response = client.get(f"/api/v1/runs/{run.pk}/result.csv")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")
