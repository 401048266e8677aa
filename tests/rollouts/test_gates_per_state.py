"""Every release state through Argo's analysis and Flagger's three hooks, called as the
tools call them, with a rollout-gate token scoped to the route. One test per state (the
release is built through the services, which takes a while), asking all four gates."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import Route
from tests.support.actors import Caller
from tests.support.rollouts import CASES, Case, flagger_post

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_gate_answers_as_the_state_and_verdict_say(
    case: Case, route_v1: Route, proposer: Any, second_approver: Any, gate: Caller
) -> None:
    release = case.build(route_v1, proposer, second_approver)
    assert release.state == case.state
    client = gate.client()

    response = client.get(f"/api/v1/releases/{release.pk}/analysis")
    assert response.status_code == 200  # Argo reads any non-2xx as a measurement error
    body = response.json()
    assert body["result"]["phase"] == case.phase, body["result"]["reason"]
    assert body["release"] == release.pk and body["state"] == case.state
    assert body["verdict"] == release.gate_verdict
    if release.gate_verdict == "marginal":
        assert body["result"]["phase"] != "Successful"
    assert response["Cache-Control"] == "no-store"

    expected = {
        "confirm-rollout": case.confirm_rollout,
        "confirm-promotion": case.confirm_promotion,
        "rollback": case.rollback,
    }
    for hook, allowed in expected.items():
        response = flagger_post(
            hook, {"route": release.route.slug, "release": str(release.pk)}, client=client
        )
        body = response.json()
        assert response.status_code == (200 if allowed else 403), (hook, body)
        assert body["allowed"] is allowed and body["release"] == release.pk and body["hook"] == hook
        assert body["reason"]
        if not allowed:
            assert response["Content-Type"].startswith("application/problem+json")
            assert body["detail"] == body["reason"]
