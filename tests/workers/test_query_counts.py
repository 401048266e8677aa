"""List endpoints and pages read a fixed number of queries, however many rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from benchmarks_app.services.lifecycle import run_start
from benchmarks_app.services.runs import run_create
from tests.workers.conftest import register

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    "baseline": {"base_url": "http://127.0.0.1:1", "model": "m"},
    "candidate": {"base_url": "http://127.0.0.1:2", "model": "m"},
}


def _add_worker_with_run(versions: Any, name: str) -> None:
    baseline, candidate = versions
    worker = register(name).worker
    run = run_create(
        route=baseline.route,
        baseline=baseline,
        candidate=candidate,
        lane="extraction",
        actor=None,
        engine_kind="openai",
        endpoints=ENDPOINTS,
        worker=worker,
        overrides={"concurrency": [1], "requests_per_level": 2, "max_tokens": 8},
    )
    run_start(run_id=run.pk, worker=worker, attempt=1)


def _count(client: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("url", ["/api/v1/workers/", "/api/v1/runs/", "/workers/"])
def test_lists_read_a_fixed_number_of_queries(versions: Any, viewer: Any, url: str) -> None:
    client = APIClient()
    client.force_login(viewer)
    _add_worker_with_run(versions, "w1")
    one = _count(client, url)
    for name in ("w2", "w3", "w4"):
        _add_worker_with_run(versions, name)
    assert _count(client, url) == one
