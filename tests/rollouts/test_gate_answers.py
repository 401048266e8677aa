"""What the gates say, beyond the state: the analysis carries each rule's value, interval
and bar as the gate stored them; the route's analysis is its active release's; the
rollback hook answers a live acceptance alert; hostile bodies are 4xx, never 500."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import Route
from live_app.models import Endpoint
from live_app.services import alert_raise
from releases_app.models import Release
from releases_app.services import release_approve, release_create, release_gate_complete
from tests.support.actors import Caller
from tests.support.gates import gate_result
from tests.support.releases import route_identity_change
from tests.support.rollouts import flagger_post, issue_gate_token

pytestmark = pytest.mark.django_db
TRIGGER = {"kind": "acceptance_drop", "min_ratio": 0.8, "windows": 2}


def _judged(route: Route, proposer: Any, verdict: str) -> Release:
    release = release_create(
        route=route, candidate_version=route_identity_change(route).number, actor=proposer
    )
    return release_gate_complete(release=release, verdict=verdict, gate_result=gate_result(verdict))


def test_the_analysis_shows_each_checks_value_interval_and_bar(
    route_v1: Route, proposer: Any, gate: Caller
) -> None:
    release = _judged(route_v1, proposer, "marginal")
    body = gate.client().get(f"/api/v1/releases/{release.pk}/analysis").json()
    stored = release.gate_result or {}
    assert body["verdict"] == "marginal" and body["result"]["phase"] == "Inconclusive"
    assert body["summary"] == stored["summary"] and body["summary"] in body["result"]["reason"]
    assert body["rules"] == stored["rules"]
    assert len(body["checks"]) == len(stored["checks"]) > 0
    for shown, kept in zip(body["checks"], stored["checks"], strict=True):
        for key in (
            "metric",
            "lane",
            "level",
            "estimate",
            "ci_low",
            "ci_high",
            "required",
            "verdict",
            "reason",
        ):
            assert shown[key] == kept[key]
    assert any(c["verdict"] == "marginal" and c["estimate"] is not None for c in body["checks"])


def test_the_routes_analysis_is_its_active_releases(
    route_v1: Route, proposer: Any, second_approver: Any, gate: Caller
) -> None:
    release = release_approve(
        release=_judged(route_v1, proposer, "pass"), actor=second_approver, reason="read the evidence"
    )
    body = gate.client().get("/api/v1/routes/contract-summaries/analysis").json()
    assert body["release"] == release.pk and body["result"]["phase"] == "Successful"
    assert body["candidate_version"] == 2 and body["baseline_version"] == 1


def test_a_route_without_an_active_release_is_404(db: None, proposer: Any) -> None:
    from tests.support.factories import example, make_version

    make_version("support-chat", example("support-chat-eagle3"))
    client = issue_gate_token(["support-chat", "unknown-route"]).client()
    for slug in ("support-chat", "unknown-route"):
        response = client.get(f"/api/v1/routes/{slug}/analysis")
        assert response.status_code == 404
        assert response["Content-Type"].startswith("application/problem+json")


def test_a_live_acceptance_alert_asks_flagger_to_roll_back(route_v1: Route, gate: Caller) -> None:
    release = Release.objects.get(route=route_v1, state="active")
    meta = {"route": route_v1.slug, "release": str(release.pk)}
    assert flagger_post("rollback", meta, client=gate.client()).status_code == 403
    endpoint = Endpoint.objects.create(
        route=route_v1, name="prod-eu", base_url="http://127.0.0.1:9", engine="vllm", expects="active"
    )
    alert = alert_raise(
        endpoint=endpoint, version=release.candidate_version, trigger=TRIGGER, reference=0.6, live=0.1
    )
    response = flagger_post("rollback", meta, client=gate.client())
    assert response.status_code == 200
    assert "prod-eu" in response.json()["reason"]
    alert.state = "not_proposed"
    alert.save(update_fields=["state"])
    assert flagger_post("rollback", meta, client=gate.client()).status_code == 403


def test_without_a_release_the_canary_is_the_routes_newest(
    route_v1: Route, proposer: Any, gate: Caller
) -> None:
    newest = _judged(route_v1, proposer, "pass")
    body = flagger_post("confirm-rollout", {"route": route_v1.slug}, client=gate.client()).json()
    assert body["release"] == newest.pk and body["allowed"] is False


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"name": "c", "namespace": "n"}, "metadata"),
        ({"name": "c", "namespace": "n", "metadata": "route=x"}, "metadata"),
        ({"name": "c", "namespace": "n", "metadata": {}}, "metadata.route"),
        ({"name": "c", "namespace": "n", "metadata": {"route": "../etc"}}, "metadata.route"),
        ({"name": "c", "namespace": "n", "metadata": {"route": "a", "release": "abc"}}, "metadata.release"),
        (
            {"name": "c", "namespace": "n", "metadata": {"route": "a", "release": "9" * 30}},
            "metadata.release",
        ),
        ({"name": "c", "namespace": "n", "metadata": {"route": "a", "release": "-1"}}, "metadata.release"),
        ({"name": "c", "namespace": "n", "metadata": {"route": {"x": 1}}}, "metadata.route"),
        ({"name": "c\u0000", "namespace": "n", "metadata": {"route": "a"}}, "name"),
        ({"name": "c" * 300, "namespace": "n", "metadata": {"route": "a"}}, "name"),
        ({"namespace": "n", "metadata": {"route": "a"}}, "name"),
    ],
)
def test_a_hostile_flagger_body_is_a_400_naming_the_field(
    route_v1: Route, gate: Caller, body: dict[str, Any], path: str
) -> None:
    response = gate.client().post("/api/v1/flagger/confirm-rollout", body, format="json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert path in {e["path"] for e in response.json()["errors"]}


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        ("[1, 2]", "application/json"),
        ('"x"', "application/json"),
        ("{", "application/json"),
        ("a=b", "text/plain"),
    ],
)
def test_a_body_that_is_no_object_is_4xx(
    route_v1: Route, gate: Caller, content: str, content_type: str
) -> None:
    for hook in ("confirm-rollout", "confirm-promotion", "rollback"):
        response = gate.client().post(f"/api/v1/flagger/{hook}", content, content_type=content_type)
        assert 400 <= response.status_code < 500, response.content
    anonymous = gate.client()
    anonymous.credentials()
    response = anonymous.post("/api/v1/flagger/rollback", content, content_type=content_type)
    assert 400 <= response.status_code < 500


@pytest.mark.parametrize(
    "path", ["/api/v1/releases/99999999999999999999/analysis", "/api/v1/routes/%00/analysis"]
)
def test_hostile_analysis_paths_are_4xx(route_v1: Route, gate: Caller, path: str) -> None:
    assert 400 <= gate.client().get(path).status_code < 500
