"""The acceptance floor the watch and the live chart share, the release states live_app
reads without importing releases_app, and the drop's announcement: releases_app proposes
once, after commit."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.test import TestCase

from contracts_app.models import Route
from live_app.models import AcceptanceAlert, Endpoint
from live_app.selectors import APPROVED_STATES, acceptance_floor
from live_app.services import alert_raise
from releases_app.choices import TRANSITIONS
from releases_app.models import Release
from releases_app.services.acceptance_drop import release_propose_for_drop

TRIGGER = {"kind": "acceptance_drop", "min_ratio": 0.8, "windows": 2}


def _version(*triggers: dict[str, Any]) -> Any:
    return SimpleNamespace(document={"rollback": {"to": "previous", "triggers": list(triggers)}})


def test_the_floor_is_the_triggers_ratio_of_what_the_benchmark_measured() -> None:
    assert acceptance_floor(_version(TRIGGER), 0.5) == pytest.approx(0.4)
    assert acceptance_floor(_version(), 0.5) is None  # no acceptance_drop trigger
    assert acceptance_floor(_version(TRIGGER), None) is None  # nothing benchmarked


def test_the_approved_states_are_every_state_a_release_reaches_once_approved() -> None:
    reached = {TRANSITIONS["approve"].target}
    grown = True
    while grown:
        more = {t.target for t in TRANSITIONS.values() if set(t.sources) & reached} - reached
        reached |= more
        grown = bool(more)
    assert set(APPROVED_STATES) == reached


@pytest.fixture
def endpoint(route_v1: Route) -> Endpoint:
    return Endpoint.objects.create(
        route=route_v1, name="prod-eu", base_url="http://127.0.0.1:9", engine="vllm", expects="active"
    )


def _raise(endpoint: Endpoint) -> AcceptanceAlert:
    version = endpoint.route.active_version
    assert version is not None
    return alert_raise(endpoint=endpoint, version=version, trigger=TRIGGER, reference=0.6, live=0.1)


def test_the_drop_is_answered_after_commit_and_only_once(endpoint: Endpoint) -> None:
    with TestCase.captureOnCommitCallbacks(execute=False) as callbacks:
        alert = _raise(endpoint)
    assert AcceptanceAlert.objects.get(pk=alert.pk).state == "open"  # nothing proposed before commit
    assert len(callbacks) == 1
    releases = Release.objects.count()
    callbacks[0]()
    answered = AcceptanceAlert.objects.get(pk=alert.pk)
    # route_v1's version 1 is its first: `rollback.to: previous` has nothing to return to.
    assert answered.state == "not_proposed" and answered.release_id is None
    assert "No rollback proposed: " in answered.reason and "no previous version" in answered.reason
    callbacks[0]()  # announced twice: the alert is already answered
    release_propose_for_drop(alert_id=alert.pk)
    assert AcceptanceAlert.objects.get(pk=alert.pk).reason == answered.reason
    assert Release.objects.count() == releases
