"""The deliveries page says when each event happened and links what it is about; a refused
loopback address names the setting that would allow it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from contracts_app.models import Route
from releases_app.services import release_create
from tests.support.factories import make_token
from tests.support.releases import cosmetic_change
from webhooks_app.services import subscription_create

pytestmark = pytest.mark.django_db


def test_a_delivery_row_has_the_event_time_and_a_link_to_the_release(
    admin: Any, settings: Any, route_v1: Route, proposer: Any
) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    subscription_create(url="http://127.0.0.1:9/hook", events=["release.*"], actor=admin)
    release = release_create(
        route=route_v1, candidate_version=cosmetic_change(route_v1).number, actor=proposer
    )
    event = AuditEvent.objects.filter(action="release.proposed", object_id=str(release.pk)).get()
    client = Client()
    client.force_login(admin)
    body = client.get("/webhooks/").content.decode()
    when = event.at.strftime("%Y-%m-%d %H:%M:%S")
    assert f'<time datetime="{event.at.isoformat()}">{when} UTC</time>' in body
    assert f'<a href="/releases/{release.pk}/">release:{release.pk}</a>' in body


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/hook", "http://localhost:9/hook"])
def test_a_refused_loopback_address_names_the_setting(admin: Any, settings: Any, url: str) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = False
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(admin, 'admin').key}")
    answer = client.post("/api/v1/webhooks/", {"url": url, "events": ["*"]}, format="json")
    assert answer.status_code == 400, answer.content
    [error] = answer.json()["errors"]
    assert error["path"] == "url" and "WEBHOOK_ALLOW_LOOPBACK=true allows loopback" in error["message"], error
