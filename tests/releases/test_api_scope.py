"""A token scoped to route A can't see or touch route B: B's releases and events answer
404 as if they did not exist."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_create
from tests.support.actors import Caller
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db


def test_an_outsider_token_cannot_read_another_routes_release(awaiting: Release, outsider: Caller) -> None:
    client = outsider.client()
    assert client.get(f"/api/v1/releases/{awaiting.pk}/").status_code == 404
    assert client.get("/api/v1/releases/").json()["count"] == 0
    assert client.get(f"/api/v1/releases/?route={awaiting.route.slug}").json()["count"] == 0


def test_an_outsider_approver_token_cannot_approve_another_routes_release(
    awaiting: Release, outsider: Caller
) -> None:
    response = outsider.client().post(
        f"/api/v1/releases/{awaiting.pk}/approve", {"reason": "x"}, format="json"
    )
    assert response.status_code == 404
    assert Release.objects.get(pk=awaiting.pk).state == "awaiting_review"


def test_an_outsider_token_cannot_propose_on_another_route(route_v1: Route, outsider: Caller) -> None:
    v2 = cosmetic_change(route_v1)
    response = outsider.client().post(
        "/api/v1/releases/", {"route": route_v1.slug, "candidate_version": v2.number}, format="json"
    )
    assert response.status_code == 404


def test_an_outsider_token_sees_no_audit_events_of_other_routes(awaiting: Release, outsider: Caller) -> None:
    assert outsider.client().get("/api/v1/audit/").json()["results"] == []


def test_a_scoped_token_sees_its_own_route(route_v1: Route, pipeline: Caller, proposer: Any) -> None:
    """The pipeline's route is contract-summaries; a release elsewhere stays invisible."""
    from tests.support.factories import example, make_version

    other = make_version("support-chat", example("support-chat-eagle3"))
    hidden = release_create(route="support-chat", candidate_version=other.number, actor=proposer)
    ids = [r["id"] for r in pipeline.client().get("/api/v1/releases/").json()["results"]]
    assert hidden.pk not in ids
    assert ids == list(Release.objects.filter(route=route_v1).values_list("id", flat=True))
    routes = {e["route"] for e in pipeline.client().get("/api/v1/audit/").json()["results"]}
    assert routes == {route_v1.slug}


def test_the_service_refuses_a_scoped_actor_outside_its_route(route_v1: Route, outsider: Caller) -> None:
    from audit_app.actors import Actor
    from kernel.errors import DomainError

    actor = Actor.for_user(outsider.user, outsider.token)
    with pytest.raises(DomainError) as refused:
        release_create(route=route_v1, candidate_version=cosmetic_change(route_v1).number, actor=actor)
    assert refused.value.status == 404
