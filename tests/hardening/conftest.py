"""Fixtures of the hardening tests: a route with two versions, a registered worker, a run
that worker has claimed (so an upload is accepted), and API clients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_start
from tests.support.factories import make_token
from tests.support.workers import openai_run, register
from worker.spec import RunSpec

NO_BROKER = "redis://127.0.0.1:9/0"


@pytest.fixture
def admin_client(admin: Any) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Token {make_token(admin, 'admin').key}")


@pytest.fixture
def claimed_run(versions: Any) -> Callable[..., tuple[Run, APIClient, RunSpec]]:
    """make(concurrency=[1, 2], requests_per_level=3, max_tokens=8) → (run, the claiming
    worker's client, its spec)."""

    def make(**load: Any) -> tuple[Run, APIClient, RunSpec]:
        registration = register(f"w{Run.objects.count() + 1}")
        overrides = {"concurrency": [1, 2], "requests_per_level": 3, "max_tokens": 8, "warmup_requests": 0}
        with override_settings(CELERY_BROKER_URL=NO_BROKER):
            run = openai_run(versions, worker=registration.worker, overrides={**overrides, **load})
        run_start(run_id=run.pk, worker=registration.worker, attempt=1)
        run.refresh_from_db()
        client = APIClient(HTTP_AUTHORIZATION=f"Token {registration.token}")
        return run, client, RunSpec.model_validate(run.spec)

    return make
