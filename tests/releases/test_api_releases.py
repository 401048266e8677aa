"""The release workflow over HTTP, with DESIGN §8's payloads."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from contracts_app.models import Route
from releases_app.models import Release
from tests.support.actors import Caller
from tests.support.releases import cosmetic_change, route_identity_change

pytestmark = pytest.mark.django_db


def _client(user: Any) -> APIClient:
    return Caller("u", user=user).client()


def test_a_pipeline_proposes_and_gets_id_and_state(route_v1: Route, pipeline: Caller) -> None:
    v2 = route_identity_change(route_v1)
    response = pipeline.client().post(
        "/api/v1/releases/", {"route": route_v1.slug, "candidate_version": v2.number}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["state"] == "benchmarking"
    assert isinstance(body["id"], int)
    assert body["baseline_version"] == 1 and body["candidate_version"] == v2.number
    assert [c["path"] for c in body["diff"]] == ["speculation.num_speculative_tokens"]
    assert response["Location"] == f"/api/v1/releases/{body['id']}/"


def test_approve_over_http_activates(awaiting: Release, approver: Any) -> None:
    response = _client(approver).post(
        f"/api/v1/releases/{awaiting.pk}/approve", {"reason": "lgtm"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "active"
    assert body["decisions"][0]["kind"] == "approve"
    assert [e["action"] for e in body["timeline"]][-2:] == ["release.approved", "release.activated"]
    assert response["ETag"] == body["etag"]


def test_the_detail_carries_an_etag_and_a_stale_if_match_gets_412(awaiting: Release, approver: Any) -> None:
    client = _client(approver)
    etag = client.get(f"/api/v1/releases/{awaiting.pk}/")["ETag"]
    assert etag == f'"release-{awaiting.pk}-v{awaiting.lock_version}"'
    client.post(f"/api/v1/releases/{awaiting.pk}/reject", {"reason": "no"}, format="json", HTTP_IF_MATCH=etag)
    events = AuditEvent.objects.count()
    stale = client.post(
        f"/api/v1/releases/{awaiting.pk}/approve", {"reason": "y"}, format="json", HTTP_IF_MATCH=etag
    )
    assert stale.status_code == 412
    assert stale.json()["code"] == "precondition_failed"
    assert AuditEvent.objects.count() == events


def test_a_current_if_match_is_accepted(awaiting: Release, approver: Any) -> None:
    client = _client(approver)
    etag = client.get(f"/api/v1/releases/{awaiting.pk}/")["ETag"]
    ok = client.post(
        f"/api/v1/releases/{awaiting.pk}/approve", {"reason": "y"}, format="json", HTTP_IF_MATCH=etag
    )
    assert ok.status_code == 200


def test_a_failed_gate_needs_override_and_justification_over_http(
    failed_gate: Release, approver: Any
) -> None:
    client = _client(approver)
    url = f"/api/v1/releases/{failed_gate.pk}/approve"
    no_override = client.post(url, {"reason": "ship"}, format="json")
    assert no_override.status_code == 409
    assert no_override.json()["code"] == "override_required"
    short = client.post(url, {"reason": "ship", "override": True, "justification": "fine"}, format="json")
    assert short.status_code == 400
    assert short.json()["errors"][0]["path"] == "justification"
    ok = client.post(
        url,
        {"reason": "ship", "override": True, "justification": "latency regression accepted by product owner"},
        format="json",
    )
    assert ok.status_code == 200
    assert ok.json()["decisions"][0]["override"] is True


def test_self_approval_over_http_is_403(route_v1: Route, second_approver: Any) -> None:
    client = _client(second_approver)
    created = client.post(
        "/api/v1/releases/",
        {"route": route_v1.slug, "candidate_version": cosmetic_change(route_v1).number},
        format="json",
    ).json()
    refused = client.post(f"/api/v1/releases/{created['id']}/approve", {"reason": "mine"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "four_eyes"


def test_a_second_proposal_while_one_is_open_is_409(awaiting: Release, operator: Any) -> None:
    response = _client(operator).post(
        "/api/v1/releases/",
        {"route": awaiting.route.slug, "candidate_version": cosmetic_change(awaiting.route, "x").number},
        format="json",
    )
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "release_open"
    # The open release, for a pipeline to wait on or cancel: in the JSON and in words.
    assert body["open_release"] == {
        "id": awaiting.pk,
        "url": f"/api/v1/releases/{awaiting.pk}/",
        "state": "awaiting_review",
    }
    assert body["status"] == 409 and body["title"] == "Conflict"
    assert f"Release {awaiting.pk} of 'contract-summaries' (proposed by pat-proposer)" in body["detail"]
    assert "is still awaiting review" in body["detail"]
    assert client_follow(operator, body["open_release"]["url"])["id"] == awaiting.pk


def client_follow(user: Any, url: str) -> dict[str, Any]:
    response = _client(user).get(url)
    assert response.status_code == 200
    return dict(response.json())


def test_reason_is_required(awaiting: Release, approver: Any) -> None:
    response = _client(approver).post(f"/api/v1/releases/{awaiting.pk}/reject", {}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "reason"


def test_bad_input_is_a_clear_400(route_v1: Route, operator: Any) -> None:
    client = _client(operator)
    bad = client.post("/api/v1/releases/", {"route": "Not A Slug!", "candidate_version": "x"}, format="json")
    assert bad.status_code == 400
    assert {e["path"] for e in bad.json()["errors"]} == {"route", "candidate_version"}
    missing = client.post("/api/v1/releases/", {"route": "nope", "candidate_version": 1}, format="json")
    assert missing.status_code == 404
    assert client.get("/api/v1/releases/?state=bogus").status_code == 400


def test_list_filters_by_route_and_state(awaiting: Release, viewer: Any) -> None:
    client = _client(viewer)
    by_state = client.get("/api/v1/releases/?state=awaiting_review").json()
    assert [r["id"] for r in by_state["results"]] == [awaiting.pk]
    both = client.get(f"/api/v1/releases/?route={awaiting.route.slug}&state=active,awaiting_review").json()
    assert both["count"] == 2
    assert client.get("/api/v1/releases/?route=other").json()["count"] == 0


def test_unknown_release_is_404(viewer: Any, approver: Any) -> None:
    assert _client(viewer).get("/api/v1/releases/999999/").status_code == 404
    assert (
        _client(approver).post("/api/v1/releases/999999/cancel", {"reason": "x"}, format="json").status_code
        == 404
    )
