"""A running benchmark on the release page: htmx polls its progress into the page, and
when the gate has its verdict the page reloads by itself with the verdict and the charts."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_progress, run_start
from tests.support.benchmarked import active_route, finish_runs, propose_candidate, register_worker
from tests.support.browser import CHARTS, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_release_page_follows_a_running_benchmark_to_its_verdict(
    live_server: Any, page: Any, shots: Any, proposer: Any, approver: Any
) -> None:
    release = propose_candidate(active=active_route(proposer=proposer, approver=approver), proposer=proposer)
    base = live_server.url
    sign_in(page, base, approver.username)
    page.goto(f"{base}/releases/{release.pk}/")
    assert page.locator("#benchmark-progress[hx-get]").count() == 1
    assert page.locator("#gate-verdict").count() == 0
    shots(page, "benchmark-queued")

    worker = register_worker()
    first = Run.objects.filter(release=release).order_by("id").first()
    assert first is not None
    run_start(run_id=first.pk, worker=worker, attempt=1)
    run_progress(run_id=first.pk, worker=worker, attempt=1, done=10, total=first.progress_total)
    # No reload: htmx swaps the progress table in place.
    page.wait_for_selector(f"progress[aria-label='run {first.pk} progress'][value='10']", timeout=15_000)
    assert "gpu-box-1" in page.inner_text("#benchmark-progress")
    shots(page, "benchmark-running")

    finish_runs(release, worker)
    page.wait_for_selector("#gate-verdict", timeout=20_000)  # HX-Refresh reloaded the page
    page.wait_for_function(
        "(selector) => document.querySelectorAll(selector + ' svg.main-svg').length >= 10", arg=CHARTS
    )
    assert page.locator("#benchmark-progress[hx-get]").count() == 0  # polling stopped
    shots(page, "benchmark-finished")
    assert page.js_errors == []
