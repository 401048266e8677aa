"""The acceptance watch on a live endpoint whose acceptance drops mid-test: windows from
counter deltas, a counter reset starting a new series, the alert, the proposed rollback,
and four eyes: nothing is activated until an approver who is not the proposer approves."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import TestCase, override_settings

from audit_app.models import AuditEvent
from contracts_app.models import Route
from kernel.errors import DomainError
from live_app.models import AcceptanceAlert, AcceptanceSample, Endpoint
from live_app.selectors import benchmark_acceptance
from live_app.services import endpoint_create, endpoint_probe
from live_app.services.watch import WATCH_USERNAME
from releases_app.models import Release
from releases_app.services import release_approve
from tests.live.conftest import MODEL, stream
from tests.support.benchmarked import NO_BROKER, benchmarked_release, candidate_document

TRIGGER = {"kind": "acceptance_drop", "min_ratio": 0.8, "windows": 2}


def _approve(release: Release, approver: Any) -> Release:
    failed = release.gate_verdict == "fail"
    return release_approve(release=release, actor=approver, reason="measured", override=failed,
                           justification="test route" if failed else "")  # fmt: skip


@pytest.fixture
def watched(proposer: Any, approver: Any, emulator: Any) -> tuple[Route, Endpoint, Any]:
    """The route's n-gram version (rollback.to previous, with the trigger) active after a
    real benchmark; a vLLM-shaped endpoint serving it, accepting 3 of 5 drafted tokens."""
    doc = candidate_document()
    doc["rollback"]["triggers"] = [TRIGGER]
    release = _approve(benchmarked_release(proposer=proposer, approver=approver, candidate=doc), approver)
    route = Route.objects.get(slug=release.route.slug)
    assert route.active_version_id == release.candidate_version_id
    spec = doc["speculation"]
    claim = {"method": "ngram", "num_speculative_tokens": spec["num_speculative_tokens"], **spec["params"]}
    live = emulator("--served-model-name", MODEL, "--speculation", json.dumps(claim), "--pattern", "4")
    endpoint = endpoint_create(route=route, name="prod-eu", base_url=live.base_url, engine="vllm",
                               actor=proposer)  # fmt: skip
    return route, endpoint, live


def _window(endpoint: Endpoint, live: Any, requests: int = 2) -> AcceptanceSample:
    stream(live, requests, max_tokens=20)
    # The alert is announced after commit (releases_app proposes the rollback then): in a
    # test's transaction the on-commit callbacks are run here.
    with override_settings(CELERY_BROKER_URL=NO_BROKER), TestCase.captureOnCommitCallbacks(execute=True):
        endpoint_probe(endpoint=endpoint)
    return AcceptanceSample.objects.filter(endpoint=endpoint).order_by("-taken_at", "-id").first()


def test_windows_come_from_counter_deltas_and_a_reset_starts_a_new_series(watched: Any) -> None:
    _, endpoint, live = watched
    first = _window(endpoint, live)
    assert first.window_acceptance_rate is None  # nothing before it
    second = _window(endpoint, live)
    truth = live.counters()
    assert second.draft_tokens == truth["draft_tokens"]
    assert second.window_acceptance_rate == pytest.approx(3 / 5)
    assert second.window_mean_acceptance_length == pytest.approx(4.0)
    live.reset_counters()  # an engine restart
    restarted = _window(endpoint, live, requests=1)
    assert restarted.reset and restarted.window_acceptance_rate is None
    after = _window(endpoint, live)
    assert not after.reset and after.window_acceptance_rate == pytest.approx(3 / 5)
    assert not AcceptanceAlert.objects.exists()


def test_a_drop_below_the_floor_alerts_and_proposes_a_rollback_that_needs_an_approver(
    watched: Any, proposer: Any, approver: Any
) -> None:
    route, endpoint, live = watched
    version = route.active_version
    reference = benchmark_acceptance(version)
    assert reference is not None and 0.8 * reference < 3 / 5  # the live route starts above the floor
    for _ in range(3):
        _window(endpoint, live)
    assert Endpoint.objects.get(pk=endpoint.pk).state == "conforms"
    assert not AcceptanceAlert.objects.exists()

    live.set_pattern([1])  # nothing drafted is accepted any more
    _window(endpoint, live)
    assert not AcceptanceAlert.objects.exists()  # one window below: not yet
    _window(endpoint, live)
    alert = AcceptanceAlert.objects.get()
    assert alert.state == "proposed" and alert.live_rate == 0.0
    assert alert.benchmark_rate == pytest.approx(reference)
    assert AuditEvent.objects.filter(action="acceptance.alert_raised", object_id=str(endpoint.pk)).exists()

    proposal = Release.objects.get(pk=alert.release_id)
    assert proposal.proposed_by.username == WATCH_USERNAME
    assert proposal.candidate_version.number == 1  # rollback.to: previous
    assert proposal.state in ("benchmarking", "awaiting_review")
    route.refresh_from_db()
    assert route.active_version_id == version.pk  # nothing activated by the watch

    _window(endpoint, live)
    assert AcceptanceAlert.objects.count() == 1  # still below: the same alert, no second proposal

    if proposal.state == "benchmarking":
        from releases_app.services import release_gate_complete

        proposal = release_gate_complete(release=proposal, verdict="pass", gate_result={"verdict": "pass"})
    with pytest.raises(DomainError):
        # The watch proposes as an operator: it can never approve, its own proposal least of all.
        from live_app.services import watch_actor

        release_approve(release=proposal, actor=watch_actor(), reason="self")
    release_approve(release=proposal, actor=approver, reason="confirmed the drop")
    route.refresh_from_db()
    assert route.active_version.number == 1
