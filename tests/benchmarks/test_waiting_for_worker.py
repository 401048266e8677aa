"""A run that no online worker can serve says why from its creation (which engine, which
pool, which workers exist and why each doesn't fit), in `runs/{id}/`, in the release
resource and on the release page; the sweep keeps it current and, after
RUN_WORKER_WAIT_MAX_S, fails it and its release with that reason."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from benchmarks_app.choices import RunState
from benchmarks_app.models import OutboxMessage, Run
from benchmarks_app.services.lifecycle import run_start
from benchmarks_app.services.sweep import runs_sweep
from releases_app.models import Release
from tests.support.benchmarked import active_route, propose_candidate, register_worker
from tests.support.workers import register

pytestmark = pytest.mark.django_db


@pytest.fixture
def vllm_release_with_a_cpu_worker(proposer: Any, approver: Any) -> Release:
    """The demo's situation: a vLLM route (managed: the worker must launch vllm, so the run
    goes to pool.gpu) and only the CPU worker online."""
    register("cpu-demo")
    return propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)


def test_a_vllm_run_with_only_a_cpu_worker_says_why_from_its_creation(
    vllm_release_with_a_cpu_worker: Release,
) -> None:
    for run in Run.objects.filter(release=vllm_release_with_a_cpu_worker):
        assert run.state == RunState.QUEUED and run.waiting_since is not None
        reason = run.waiting_reason
        assert "launches vllm" in reason and "pool.gpu" in reason, reason
        assert "cpu-demo" in reason and "does not consume pool.gpu" in reason, reason
        assert "it consumes worker." in reason and "engine.transformers" in reason, reason
        assert run.history[-1]["event"] == "waiting for a worker"


def test_the_reason_is_in_the_run_and_release_resources(
    vllm_release_with_a_cpu_worker: Release, pipeline: Any
) -> None:
    release = vllm_release_with_a_cpu_worker
    run = Run.objects.filter(release=release).order_by("id").first()
    assert run is not None
    body = pipeline.client().get(f"/api/v1/runs/{run.pk}/").json()
    assert body["waiting_reason"] == run.waiting_reason and body["waiting_since"]
    detail = pipeline.client().get(f"/api/v1/releases/{release.pk}/").json()
    waiting = detail["waiting_for_worker"]
    assert [w["run"] for w in waiting] == list(
        Run.objects.filter(release=release).order_by("id").values_list("pk", flat=True)
    )
    assert all("pool.gpu" in w["reason"] and w["lane"] for w in waiting)


def test_the_release_page_says_why_on_its_first_render_and_stops_once_a_worker_fits(
    vllm_release_with_a_cpu_worker: Release, proposer: Any
) -> None:
    client = Client()
    client.force_login(proposer)
    url = f"/releases/{vllm_release_with_a_cpu_worker.pk}/"
    body = client.get(url).content.decode()
    assert "Waiting for a worker" in body and "does not consume pool.gpu" in body
    register_worker()  # a GPU box with vllm: it consumes pool.gpu
    assert "Waiting for a worker" not in client.get(url).content.decode()


def test_the_sweep_clears_the_reason_when_a_fitting_worker_comes(
    vllm_release_with_a_cpu_worker: Release,
) -> None:
    gpu = register_worker()
    report = runs_sweep()
    assert report.waiting == [] and report.failed == []
    for run in Run.objects.filter(release=vllm_release_with_a_cpu_worker):
        assert (run.waiting_reason, run.waiting_since) == ("", None)
        assert run.history[-1]["event"] == "a worker fits"
        assert run_start(run_id=run.pk, worker=gpu, attempt=1).state == RunState.RUNNING


def test_a_claimed_run_is_no_longer_waiting(vllm_release_with_a_cpu_worker: Release) -> None:
    gpu = register_worker()
    run = Run.objects.filter(release=vllm_release_with_a_cpu_worker).first()
    assert run is not None and run.waiting_reason
    started = run_start(run_id=run.pk, worker=gpu, attempt=1)
    assert (started.waiting_reason, started.waiting_since) == ("", None)


@override_settings(RUN_WORKER_WAIT_MAX_S=60)
def test_past_the_bound_the_runs_and_the_release_fail_with_the_reason(
    vllm_release_with_a_cpu_worker: Release, django_capture_on_commit_callbacks: Any
) -> None:
    release = vllm_release_with_a_cpu_worker
    ids = sorted(Run.objects.filter(release=release).values_list("pk", flat=True))
    assert runs_sweep(now=timezone.now() + timedelta(seconds=30)).waiting == ids  # within the bound
    with django_capture_on_commit_callbacks(execute=True):
        report = runs_sweep(now=timezone.now() + timedelta(seconds=61))
    assert sorted(report.failed) == ids
    for run in Run.objects.filter(release=release):
        assert run.state == RunState.FAILED
        assert "no worker could serve it for" in run.last_error and "RUN_WORKER_WAIT_MAX_S" in run.last_error
        assert "does not consume pool.gpu" in run.last_error
    # Never delivered now: a worker that comes later does not start a failed run.
    assert not OutboxMessage.objects.filter(
        run__release=release, published_at__isnull=True, discarded_at__isnull=True
    ).exists()
    release.refresh_from_db()
    assert release.state == "failed" and "does not consume pool.gpu" in release.failure_reason


def test_no_worker_at_all_is_said_too(proposer: Any, approver: Any) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    for run in Run.objects.filter(release=release):
        assert "no worker is registered" in run.waiting_reason


def test_a_run_some_worker_fits_is_not_marked(proposer: Any, approver: Any) -> None:
    register_worker()
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    assert not Run.objects.filter(release=release).exclude(waiting_reason="").exists()


def test_the_run_page_names_the_engine_it_will_launch_and_why_it_waits(
    vllm_release_with_a_cpu_worker: Release, proposer: Any
) -> None:
    run = Run.objects.filter(release=vllm_release_with_a_cpu_worker).first()
    assert run is not None
    client = Client()
    client.force_login(proposer)
    body = client.get(f"/runs/{run.pk}/").content.decode()
    assert "engine: vllm launched by the worker from the rendered command" in body
    assert "Waiting for a worker</strong> since" in body and "does not consume pool.gpu" in body
