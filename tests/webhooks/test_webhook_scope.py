"""Webhooks under route scope: a scoped admin token subscribes to, lists, reads,
redelivers and deletes only what belongs to its routes; everything else answers 404 (a
subscription to every route: 403 to create, 404 to read), and an unscoped admin sees all."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from audit_app.actors import Actor
from kernel.errors import NotFound
from tests.support.factories import make_token
from webhooks_app.models import Delivery, Subscription
from webhooks_app.services import (
    deliveries_write,
    delivery_redeliver,
    subscription_create,
    subscription_delete,
)

pytestmark = pytest.mark.django_db

MINE = "contract-summaries"
THEIRS = "elsewhere"
URL = "http://127.0.0.1:9/hook"


@pytest.fixture
def hooks(settings: Any, admin: Any) -> dict[str, Subscription]:
    """One subscription of each kind, by an unscoped admin, each with one delivery."""
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    made = {
        name: subscription_create(url=URL, events=["*"], route=route, actor=admin).subscription
        for name, route in (("mine", MINE), ("theirs", THEIRS), ("every", ""))
    }
    for n, route in enumerate((MINE, THEIRS)):
        deliveries_write(event="release.approved", event_key=f"e{n}", route=route, data={})
    return made


def _client(user: Any, role: str, routes: list[str] | None = None) -> APIClient:
    return APIClient(HTTP_AUTHORIZATION=f"Token {make_token(user, role, routes).key}")


@pytest.fixture
def scoped(admin: Any) -> APIClient:
    return _client(admin, "admin", [MINE])


def _delivery(subscription: Subscription, route: str) -> Delivery:
    return Delivery.objects.get(subscription=subscription, route=route)


def test_a_scoped_token_subscribes_only_to_its_own_routes(scoped: APIClient, settings: Any) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    mine = scoped.post("/api/v1/webhooks/", {"url": URL, "events": ["*"], "route": MINE}, format="json")
    assert mine.status_code == 201, mine.content
    theirs = scoped.post("/api/v1/webhooks/", {"url": URL, "events": ["*"], "route": THEIRS}, format="json")
    assert theirs.status_code == 404, theirs.content
    every = scoped.post("/api/v1/webhooks/", {"url": URL, "events": ["*"]}, format="json")
    assert every.status_code == 403, every.content
    assert every["Content-Type"] == "application/problem+json"
    assert list(Subscription.objects.values_list("route", flat=True)) == [MINE]


def test_a_scoped_token_lists_and_reads_only_its_routes_subscriptions(
    scoped: APIClient, hooks: dict[str, Subscription]
) -> None:
    listed = scoped.get("/api/v1/webhooks/").json()
    assert [h["id"] for h in listed["results"]] == [hooks["mine"].pk]
    assert listed["count"] == 1
    assert scoped.get(f"/api/v1/webhooks/{hooks['mine'].pk}/").status_code == 200
    for other in ("theirs", "every"):
        pk = hooks[other].pk
        assert scoped.get(f"/api/v1/webhooks/{pk}/").status_code == 404
        assert scoped.get(f"/api/v1/webhooks/{pk}/deliveries/").status_code == 404
    deliveries = scoped.get(f"/api/v1/webhooks/{hooks['mine'].pk}/deliveries/").json()["results"]
    assert [d["id"] for d in deliveries] == [_delivery(hooks["mine"], MINE).pk]


def test_a_scoped_token_redelivers_and_deletes_only_its_routes(
    scoped: APIClient, hooks: dict[str, Subscription]
) -> None:
    theirs = _delivery(hooks["theirs"], THEIRS)
    answer = scoped.post(f"/api/v1/webhooks/{hooks['theirs'].pk}/deliveries/{theirs.pk}/redeliver")
    assert answer.status_code == 404
    # Another's delivery under one's own subscription's path: 404 as well.
    answer = scoped.post(f"/api/v1/webhooks/{hooks['mine'].pk}/deliveries/{theirs.pk}/redeliver")
    assert answer.status_code == 404
    mine = _delivery(hooks["mine"], MINE)
    answer = scoped.post(f"/api/v1/webhooks/{hooks['mine'].pk}/deliveries/{mine.pk}/redeliver")
    assert answer.status_code == 200, answer.content
    for other in ("theirs", "every"):
        assert scoped.delete(f"/api/v1/webhooks/{hooks[other].pk}/").status_code == 404
    assert scoped.delete(f"/api/v1/webhooks/{hooks['mine'].pk}/").status_code == 204
    assert set(Subscription.objects.values_list("route", flat=True)) == {THEIRS, ""}


def test_the_services_hold_the_scope_whoever_calls_them(admin: Any, hooks: dict[str, Subscription]) -> None:
    issued = make_token(admin, "admin", [MINE])
    actor = Actor.for_user(admin, issued.token)
    with pytest.raises(NotFound):
        delivery_redeliver(delivery_id=_delivery(hooks["theirs"], THEIRS).pk, actor=actor)
    with pytest.raises(NotFound):
        subscription_delete(subscription_id=hooks["every"].pk, actor=actor)
    with pytest.raises(NotFound):
        subscription_create(url=URL, events=["*"], route=THEIRS, actor=actor)
    assert Subscription.objects.count() == 3


def test_an_unscoped_admin_sees_every_subscription(admin: Any, hooks: dict[str, Subscription]) -> None:
    listed = _client(admin, "admin").get("/api/v1/webhooks/").json()["results"]
    assert {h["id"] for h in listed} == {h.pk for h in hooks.values()}


def test_the_outsider_and_the_pipeline_are_not_admins(outsider: Any, pipeline: Any, hooks: Any) -> None:
    for caller in (outsider, pipeline):
        client = APIClient(HTTP_AUTHORIZATION=f"Token {caller.key}")
        assert client.get("/api/v1/webhooks/").status_code == 403
        assert client.get(f"/api/v1/webhooks/{hooks['mine'].pk}/").status_code == 403
