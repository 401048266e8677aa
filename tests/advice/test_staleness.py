"""Re-advice when the world moves (issue 24 point 5): the route's latest finished advice is
stale when the active version runs another engine release than the one it measured, or when
the acceptance watch raised an alert on the route since it finished; the route page says
so in words and offers a new run."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings

from advice_app.models import AdviceRun
from advice_app.selectors import advice_staleness
from contracts_app.models import Route
from live_app.models import Endpoint
from live_app.services import alert_raise, endpoint_create
from releases_app.services import release_approve, release_create
from tests.support.advised import advice_asked, advice_finished, advised_route
from tests.support.benchmarked import NO_BROKER, finish_runs
from tests.support.factories import make_version, variant

pytestmark = pytest.mark.django_db

TRIGGER = {"kind": "acceptance_drop", "min_ratio": 0.8, "windows": 2}


@pytest.fixture
def route(proposer: Any, approver: Any) -> Route:
    return advised_route(proposer=proposer, approver=approver)


@pytest.fixture
def finished(route: Route, operator: Any) -> AdviceRun:
    return advice_finished(route, operator)


def _route(route: Route) -> Route:
    return Route.objects.with_active_version().get(pk=route.pk)


def _endpoint(route: Route, operator: Any) -> Endpoint:
    return endpoint_create(
        route=route, name="prod-eu", base_url="http://127.0.0.1:9", engine="vllm", actor=operator
    )


def _alert(endpoint: Endpoint, at: Any) -> None:
    version = _route(endpoint.route).active_version
    assert version is not None
    alert_raise(endpoint=endpoint, version=version, trigger=TRIGGER, reference=0.6, live=0.2, at=at)


def _page(user: Any, route: Route) -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/routes/{route.slug}/").content.decode()


def test_no_finished_advice_is_no_staleness(route: Route, operator: Any, viewer: Any) -> None:
    advice_asked(route, operator)  # measuring: not finished
    assert advice_staleness(_route(route)) is None
    body = _page(viewer, route)
    assert "No finished advice yet" in body and f'href="/routes/{route.slug}/advice/"' in body


def test_a_fresh_advice_still_holds(finished: AdviceRun, route: Route, operator: Any, viewer: Any) -> None:
    # An alert raised before the advice finished says nothing about it.
    _alert(_endpoint(route, operator), at=finished.created_at - timedelta(minutes=1))
    staleness = advice_staleness(_route(route))
    assert staleness is not None and staleness.advice.pk == finished.pk
    assert staleness.reasons == () and not staleness.stale
    body = _page(viewer, route)
    assert f'href="/advice/{finished.pk}/"' in body and "data-advice-current" in body
    assert "data-advice-stale" not in body


def test_a_new_engine_release_makes_it_stale(
    finished: AdviceRun, route: Route, proposer: Any, second_approver: Any, operator: Any
) -> None:
    active = _route(route).active_version
    assert active is not None and finished.engine_release == active.document["target"]["engine_version"]
    newer = make_version(route.slug, variant(active.document, **{"target.engine_version": "0.25.0"}))
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        release = release_create(
            route=route.slug, candidate_version=newer.number, actor=proposer, reason="upgrade"
        )
    if release.state == "benchmarking":
        release = finish_runs(release)
    extra = {"override": True, "justification": "an engine upgrade the gate held against speculation off"}
    release_approve(
        release=release,
        actor=second_approver,
        reason="upgrade",
        **(extra if release.gate_verdict == "fail" else {}),
    )
    staleness = advice_staleness(_route(route))
    assert staleness is not None
    assert staleness.reasons == (
        f"The engine release changed: the advice measured vllm {finished.engine_release}; "
        f"the active version (v{newer.number}) runs vllm 0.25.0.",
    )
    body = _page(operator, route)
    assert "This advice is stale" in body and "runs vllm 0.25.0" in body
    assert "Start a new advice run" in body and f'href="/routes/{route.slug}/advice/#new-advice"' in body


def test_acceptance_drift_since_it_finished_makes_it_stale(
    finished: AdviceRun, route: Route, operator: Any, viewer: Any
) -> None:
    assert finished.finished_at is not None
    _alert(_endpoint(route, operator), at=finished.finished_at + timedelta(minutes=5))
    staleness = advice_staleness(_route(route))
    assert staleness is not None and len(staleness.reasons) == 1
    reason = staleness.reasons[0]
    assert reason.startswith("The acceptance watch saw acceptance drift on endpoint prod-eu at ")
    assert "after the advice finished: Live acceptance on contract-summaries/prod-eu was 0.200" in reason
    body = _page(viewer, route)
    assert "This advice is stale" in body and "acceptance drift on endpoint prod-eu" in body
    # A viewer is shown the advice runs, not a form to start one.
    assert "Start a new advice run" not in body and f'href="/routes/{route.slug}/advice/"' in body


def test_the_newest_finished_advice_is_the_one_judged(route: Route, operator: Any) -> None:
    first = advice_finished(route, operator)
    second = advice_finished(route, operator)
    staleness = advice_staleness(_route(route))
    assert staleness is not None and staleness.advice.pk == second.pk != first.pk
