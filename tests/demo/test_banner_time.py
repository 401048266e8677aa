"""The demo banner's time to a verdict: what the last demo benchmark took on this machine,
else the time measured on a 2-core CPU."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from benchmarks_app.models import Run
from releases_app.models import Release
from specpact.demo.seed import BENCHMARKED_ROUTE, time_to_verdict_words
from tests.support.benchmarked import active_route, candidate_document, propose_candidate, register_worker

pytestmark = pytest.mark.django_db


def test_with_no_finished_demo_benchmark_it_gives_the_measured_time() -> None:
    assert time_to_verdict_words().startswith("expect about 4 minutes to a verdict on a 2-core CPU")


def test_after_a_demo_benchmark_it_says_how_long_that_took(proposer: Any, approver: Any) -> None:
    register_worker()
    doc = candidate_document()
    base = {**doc, "speculation": {"method": "none"}}
    base["compatibility"] = {**doc["compatibility"], "batching": dict(doc["compatibility"]["batching"])}
    base["compatibility"]["batching"].pop("speculation_off_above_batch_size", None)
    release = propose_candidate(
        active=active_route(proposer=proposer, approver=approver, slug=BENCHMARKED_ROUTE, baseline=base),
        proposer=proposer,
    )
    ended = release.created_at + timedelta(minutes=3, seconds=58)
    Run.objects.filter(release=release).update(state="succeeded", finished_at=ended)
    Release.objects.filter(pk=release.pk).update(gate_verdict="pass")
    assert time_to_verdict_words() == "the last demo benchmark on this machine took 3 min 58 s to a verdict"
