"""A release entering `benchmarking` gets one run per lane (with its dispatch); when its
runs end, the release fails or the gate gives the verdict."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.test import override_settings

from benchmarks_app.choices import RunState
from benchmarks_app.models import OutboxMessage, Run
from benchmarks_app.services import release_runs_cancel
from benchmarks_app.services.lifecycle import run_fail, run_result_submit, run_start
from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_create, releases_conclude_left_behind
from tests.support.factories import example, make_version, variant
from tests.support.workers import GPU_HARDWARE, register

pytestmark = pytest.mark.django_db(transaction=True)

NO_BROKER = "redis://127.0.0.1:9/0"
# The lane measured as in the shared result template (conftest.outcome_template).
SMALL_LANE = {
    "extraction": {
        "dataset": "builtin:extraction",
        "concurrency": [1, 2],
        "requests_per_level": 3,
        "max_tokens": 8,
    }
}


def _release(operator: Any, workloads: dict[str, Any] | None = None) -> Release:
    doc = example("contract-summaries-ngram")
    if workloads is not None:
        doc = variant(doc, **{"measurement.workloads": workloads})
    baseline = make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 4}))
    make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 6}))
    Route.objects.filter(pk=baseline.route_id).update(active_version=baseline)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        return release_create(route="contract-summaries", candidate_version=2, actor=operator)


def test_a_benchmarking_release_gets_one_dispatched_run_per_lane(operator: Any) -> None:
    release = _release(operator)
    assert release.state == "benchmarking"
    runs = list(Run.objects.filter(release=release).order_by("lane"))
    assert [r.lane for r in runs] == ["extraction", "summarization"]
    assert {r.engine_kind for r in runs} == {"managed"} and {r.queue for r in runs} == {"pool.gpu"}
    assert all(OutboxMessage.objects.filter(run=r, attempt=1).exists() for r in runs)
    spec = runs[1].spec
    assert [lv["concurrency"] for lv in spec["load"]["levels"]] == [1, 4, 16]
    assert spec["arms"]["candidate"]["engine"]["argv"][0] == "vllm"
    assert spec["arms"]["baseline"]["contract_version"] == 1 and spec["interleave"] == "arm_blocks"


def test_a_failed_run_fails_the_release_with_the_reason(operator: Any) -> None:
    release = _release(operator)
    worker = register("w1", hardware=GPU_HARDWARE).worker
    run = Run.objects.filter(release=release).first()
    run_start(run_id=run.pk, worker=worker, attempt=1)
    run_fail(run_id=run.pk, worker=worker, attempt=1, kind="error", reason="EngineStartError: vllm exited 1")
    release.refresh_from_db()
    assert release.state == "benchmarking"  # the other lane is still queued
    other = Run.objects.filter(release=release).exclude(pk=run.pk).get()
    run_start(run_id=other.pk, worker=worker, attempt=1)
    run_fail(run_id=other.pk, worker=worker, attempt=1, kind="timeout", reason="over 3600 s")
    release.refresh_from_db()
    assert release.state == "failed"
    assert (
        "EngineStartError: vllm exited 1" in release.failure_reason and "timed_out" in release.failure_reason
    )


def test_when_every_run_succeeds_the_gate_gives_the_verdict(
    operator: Any, outcome_template: dict[str, Any]
) -> None:
    release = _release(operator, workloads=SMALL_LANE)
    worker = register("w1", hardware=GPU_HARDWARE).worker
    [run] = Run.objects.filter(release=release)
    run_start(run_id=run.pk, worker=worker, attempt=1)
    payload = {**copy.deepcopy(outcome_template), "run_id": run.pk}
    run_result_submit(run_id=run.pk, worker=worker, attempt=1, payload=payload)
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED
    assert [lv["level"] for lv in run.result.aggregates["candidate"]] == [1, 2] or run.result.aggregates[
        "candidate"
    ]
    release.refresh_from_db()
    assert release.state == "awaiting_review"
    # Three requests per level are fewer than the five per arm the gate needs: marginal.
    assert release.gate_verdict == "marginal" and release.gate_result["verdict"] == "marginal"


def test_cancelling_a_releases_runs_cancels_the_active_ones(operator: Any) -> None:
    release = _release(operator)
    cancelled = release_runs_cancel(release=release, actor=operator, reason="superseded by v3")
    assert len(cancelled) == 2
    assert {r.state for r in Run.objects.filter(release=release)} == {RunState.CANCELLED}
    assert all("superseded by v3" in r.last_error for r in Run.objects.filter(release=release))
    assert not OutboxMessage.objects.filter(discarded_at__isnull=True, published_at__isnull=True).exists()


def test_a_release_whose_run_signal_was_lost_is_concluded_by_the_periodic_pass(operator: Any) -> None:
    release = _release(operator)
    # The runs end without their signal (as if the process died after the commit).
    Run.objects.filter(release=release).update(state=RunState.FAILED, last_error="worker lost")
    assert Release.objects.get(pk=release.pk).state == "benchmarking"
    assert releases_conclude_left_behind() == [release.pk]
    release.refresh_from_db()
    assert release.state == "failed" and "worker lost" in release.failure_reason
    assert releases_conclude_left_behind() == []


def test_the_periodic_pass_leaves_a_release_with_an_active_run_alone(operator: Any) -> None:
    release = _release(operator)
    first = Run.objects.filter(release=release).order_by("id").first()
    Run.objects.filter(pk=first.pk).update(state=RunState.FAILED, last_error="worker lost")
    assert releases_conclude_left_behind() == []
    assert Release.objects.get(pk=release.pk).state == "benchmarking"
