"""A release that leaves `benchmarking` early (cancelled or rejected) takes its queued
runs with it, in the same transaction."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from benchmarks_app.models import Run
from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_cancel, release_create, release_reject
from tests.support.factories import example, make_version, variant

pytestmark = pytest.mark.django_db

# Dispatch goes through the outbox: a broker nobody listens on keeps the runs queued.
NO_BROKER = "redis://127.0.0.1:9/0"


def _benchmarking(operator: Any) -> Release:
    doc = example("contract-summaries-ngram")
    baseline = make_version("contract-summaries", variant(doc, **{"speculation.num_speculative_tokens": 4}))
    make_version("contract-summaries", doc)
    Route.objects.filter(pk=baseline.route_id).update(active_version=baseline)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        release = release_create(route="contract-summaries", candidate_version=2, actor=operator)
    assert release.state == "benchmarking"
    assert Run.objects.filter(release=release, state="queued").count() == 2
    return release


def test_cancelling_a_benchmarking_release_cancels_its_runs(operator: Any) -> None:
    release = _benchmarking(operator)
    release_cancel(release=release, actor=operator, reason="wrong candidate")
    states = set(Run.objects.filter(release=release).values_list("state", flat=True))
    assert states == {"cancelled"}
    assert all("wrong candidate" in e for e in Run.objects.values_list("last_error", flat=True))


def test_rejecting_a_benchmarking_release_cancels_its_runs(operator: Any, approver: Any) -> None:
    release = _benchmarking(operator)
    release_reject(release=release, actor=approver, reason="not this quarter")
    assert set(Run.objects.filter(release=release).values_list("state", flat=True)) == {"cancelled"}
