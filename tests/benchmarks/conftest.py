"""Fixtures for the worker protocol: routes with two versions to compare, and
(integration) real processes: a private redis-server this test may stop, engine
emulators for given endpoints, and `specpact-worker run` agents (tests/support)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from benchmarks_app.models import Run
from tests.support.launcher import Emulators
from tests.support.run_specs import arm, run_spec
from worker.agent.execute import execute
from worker.spec import RunSpec


@pytest.fixture(scope="session")
def outcome_template() -> Iterator[dict[str, Any]]:
    """A real result: the harness run against two vLLM-shaped engine emulators."""
    with Emulators() as emulators:
        base = emulators.start("--pattern", "1", "--step-ms", "2")
        cand = emulators.start("--pattern", "3", "--step-ms", "2")
        spec = RunSpec.model_validate(
            run_spec(baseline=arm(base.base_url), candidate=arm(cand.base_url), requests_per_level=3)
        )
        yield execute(spec, lambda *_: None)


# A closed port: the dispatch kick after commit fails fast and the row stays pending, so
# these tests touch no broker (the relay's own tests use a real Redis).
NO_BROKER = "redis://127.0.0.1:9/0"
SMALL = {
    "engine": "openai",
    "concurrency": [1, 2],
    "requests_per_level": 3,
    "max_tokens": 8,
    "warmup_requests": 0,
}


def standalone_run(operator: Any) -> Run:
    """A standalone run of the extraction lane on given endpoints, created over the API."""
    client = APIClient()
    client.force_login(operator)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        response = client.post(
            "/api/v1/runs/",
            {
                "route": "contract-summaries",
                "baseline_version": 1,
                "candidate_version": 2,
                "lane": "extraction",
                "endpoints": {
                    "baseline": {"base_url": "http://127.0.0.1:1", "model": "m"},
                    "candidate": {"base_url": "http://127.0.0.1:2", "model": "m"},
                },
                **SMALL,
            },
            format="json",
        )
    assert response.status_code == 201, response.content
    return Run.objects.get(pk=response.json()["id"])


@pytest.fixture
def run(versions: Any, operator: Any) -> Run:
    return standalone_run(operator)
