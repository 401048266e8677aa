"""List endpoints and pages read a pinned number of queries, however many rows."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from benchmarks_app.services.lifecycle import run_start
from tests.support.query_counts import assert_num_queries
from tests.support.workers import SMALL_LOAD, openai_run, register

pytestmark = pytest.mark.django_db


def _add_worker_with_run(versions: Any, name: str) -> None:
    worker = register(name).worker
    run = openai_run(versions, worker=worker, overrides=SMALL_LOAD)
    run_start(run_id=run.pk, worker=worker, attempt=1)


@pytest.mark.parametrize(
    # The runs API pages by cursor: no count query.
    ("url", "queries"),
    [("/api/v1/workers/", 5), ("/api/v1/runs/", 4), ("/workers/", 6)],
)
def test_lists_read_a_fixed_number_of_queries(versions: Any, viewer: Any, url: str, queries: int) -> None:
    client = APIClient()
    client.force_login(viewer)
    _add_worker_with_run(versions, "w1")
    with assert_num_queries(queries):
        assert client.get(url).status_code == 200
    for name in ("w2", "w3", "w4"):
        _add_worker_with_run(versions, name)
    with assert_num_queries(queries):
        assert client.get(url).status_code == 200
