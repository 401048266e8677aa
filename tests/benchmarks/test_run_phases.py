"""A running benchmark says what it is doing: the worker reports its phase (the engine
starting, the model loading, benchmarking) with its progress; the run keeps it and since
when, and the release page shows it with the elapsed time."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_start
from tests.support.benchmarked import active_route, propose_candidate, register_worker
from tests.support.workers import openai_run, register

pytestmark = pytest.mark.django_db


def test_the_phase_and_its_start_are_kept_until_it_changes(versions: Any) -> None:
    reg = register("w1")
    run = openai_run(versions)
    run_start(run_id=run.pk, worker=reg.worker, attempt=1)
    worker = APIClient(HTTP_AUTHORIZATION=f"Token {reg.token}")
    url = f"/api/v1/runs/{run.pk}/progress"

    body = {"attempt": 1, "done": 0, "total": 4, "phase": "engine_starting"}
    assert worker.post(url, body, format="json").status_code == 200
    run.refresh_from_db()
    assert run.phase == "engine_starting" and run.phase_since is not None
    since = run.phase_since
    # Unchanged (or left out, as older workers do): the phase and its start stay.
    assert worker.post(url, body, format="json").status_code == 200
    assert worker.post(url, {"attempt": 1, "done": 0, "total": 4}, format="json").status_code == 200
    run.refresh_from_db()
    assert (run.phase, run.phase_since) == ("engine_starting", since)

    body |= {"done": 1, "phase": "benchmarking"}
    assert worker.post(url, body, format="json").status_code == 200
    run.refresh_from_db()
    assert run.phase == "benchmarking" and run.phase_since > since


def test_an_unknown_phase_is_a_400_naming_the_field(versions: Any) -> None:
    reg = register("w1")
    run = openai_run(versions)
    run_start(run_id=run.pk, worker=reg.worker, attempt=1)
    worker = APIClient(HTTP_AUTHORIZATION=f"Token {reg.token}")
    response = worker.post(
        f"/api/v1/runs/{run.pk}/progress",
        {"attempt": 1, "done": 0, "total": 4, "phase": "warp"},
        format="json",
    )
    assert response.status_code == 400
    assert [e["path"] for e in response.json()["errors"]] == ["phase"]
    run.refresh_from_db()
    assert run.phase == ""


def test_the_release_page_says_the_engine_is_starting_with_the_elapsed_time(
    proposer: Any, approver: Any
) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    gpu = register_worker()
    run = Run.objects.filter(release=release).order_by("id").first()
    assert run is not None
    run_start(run_id=run.pk, worker=gpu, attempt=1)
    Run.objects.filter(pk=run.pk).update(
        phase="engine_starting", phase_since=timezone.now() - timedelta(seconds=75)
    )
    client = Client()
    client.force_login(proposer)
    body = client.get(f"/releases/{release.pk}/evidence/progress").content.decode()
    assert "the engine is starting and loading its model (1 min 15 s)" in body
