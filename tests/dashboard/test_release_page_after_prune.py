"""After the retention setting pruned a release's raw samples (issue 26, point 2): the
release page still answers 200 with every chart, drawn from the stored aggregates, the
verdict unchanged, the raw downloads replaced by when and why; the audit trail (the gate's
evidence included) still verifies; and a gate that would need the pruned samples says so
instead of judging nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from django.utils import timezone

from audit_app.checkpoints import verify_audit
from benchmarks_app.models import Run, RunResult
from benchmarks_app.services.lifecycle import run_result_submit, run_start
from benchmarks_app.services.retention import raw_samples_prune
from releases_app.models import Release
from releases_app.services import release_conclude
from tests.dashboard.test_evidence import figures
from tests.support.benchmarked import active_route, harness_outcome, propose_candidate, register_worker

pytestmark = pytest.mark.django_db


def _age_results(release: Release, days: int) -> None:
    RunResult.objects.filter(run__release=release).update(received_at=timezone.now() - timedelta(days=days))


@override_settings(RAW_SAMPLES_RETENTION_DAYS=30)
def test_the_release_page_draws_from_aggregates_after_the_raw_samples_are_gone(
    benchmarked: Release, signed_in: Client
) -> None:
    before = signed_in.get(f"/releases/{benchmarked.pk}/").content.decode()
    _age_results(benchmarked, 31)
    report = raw_samples_prune()
    assert report.results == Run.objects.filter(release=benchmarked).count() == 2
    cache.clear()  # the figures are built again, from what is stored now
    response = signed_in.get(f"/releases/{benchmarked.pk}/")
    assert response.status_code == 200
    body = response.content.decode()
    assert figures(body) == figures(before)  # every chart, the same figures: from the aggregates
    assert len(figures(body)) > 10
    release = Release.objects.get(pk=benchmarked.pk)
    assert (release.gate_verdict, release.gate_result) == (benchmarked.gate_verdict, benchmarked.gate_result)
    assert f'badge-{benchmarked.gate_verdict}">{benchmarked.gate_verdict}</span>' in body
    day = f"{timezone.now():%Y-%m-%d}"
    assert body.count(f"pruned on {day} by the retention setting (RAW_SAMPLES_RETENTION_DAYS)") == 2
    assert "-requests.csv" not in body and "result.csv" not in body
    # The gate's evidence (the digests it judged) holds with the digests taken at upload.
    status = verify_audit()
    assert status["valid"], status


@override_settings(RAW_SAMPLES_RETENTION_DAYS=1)
def test_a_gate_whose_samples_were_pruned_fails_the_release_with_the_reason(
    proposer: Any, approver: Any
) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    worker = register_worker()
    for run in Run.objects.filter(release=release).order_by("id"):
        run_start(run_id=run.pk, worker=worker, attempt=run.attempt)
        run = Run.objects.get(pk=run.pk)
        run_result_submit(run_id=run.pk, worker=worker, attempt=run.attempt, payload=harness_outcome(run))
    _age_results(release, 2)  # left unconcluded past the retention (its message lost)
    assert raw_samples_prune().results == 2
    assert "pruned" in release_conclude(release_id=release.pk)
    release.refresh_from_db()
    assert release.state == "failed"
    assert "the retention setting (RAW_SAMPLES_RETENTION_DAYS) pruned them" in release.failure_reason
