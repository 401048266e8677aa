"""List endpoints and pages read a fixed number of queries, however many rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from benchmarks_app.services.lifecycle import run_start
from tests.support.workers import SMALL_LOAD, openai_run, register

pytestmark = pytest.mark.django_db


def _add_worker_with_run(versions: Any, name: str) -> None:
    worker = register(name).worker
    run = openai_run(versions, worker=worker, overrides=SMALL_LOAD)
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
