"""Hostile strings in the text fields people write (route descriptions, release and
decision reasons, contract descriptions, webhook descriptions): stored verbatim or refused
with a 400 naming the field, and every page that shows them shows them escaped."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client
from django.utils.html import escape
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from contracts_app.models import ContractVersion, Route
from releases_app.models import Decision
from tests.support.factories import example, make_token, variant
from webhooks_app.models import Subscription

pytestmark = pytest.mark.django_db

HOSTILE = {
    "script": "<script>alert('pwned')</script><img src=x onerror=alert(1)>",
    "template": "{{7*7}} {% now 'Y' %} ${7*7}",
    "sql": "' OR 1=1; DROP TABLE contracts_app_route; --",
    "rtl": "approved \u202egnp.exe\u202c by \u2067ops\u2069",
}
NUL = "before\x00after"


def _api(user: Any, role: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(user, role).key}")
    return client


def _assert_shown_escaped(html: str, text: str) -> None:
    assert escape(text) in html, f"{text!r} is not on the page escaped"
    if "<" in text:
        assert "<script>alert(" not in html and "<img src=x" not in html
    if "{{7*7}}" in text:
        # Evaluated, the text would read "49 <year> $49"; the page clock may say :49 anywhere.
        assert f"49 {datetime.now(UTC).year}" not in html


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_is_stored_verbatim_and_every_page_escapes_it(
    name: str, proposer: Any, approver: Any, admin: Any, settings: Any
) -> None:
    text = HOSTILE[name]
    operator = _api(proposer, "operator")
    slug = "contract-summaries"
    upload = operator.post(
        f"/api/v1/routes/{slug}/versions/", variant(example(), description=text), format="json"
    )
    assert upload.status_code == 201, upload.content
    assert operator.patch(f"/api/v1/routes/{slug}/", {"description": text}, format="json").status_code == 200
    proposed = operator.post(
        "/api/v1/releases/", {"route": slug, "candidate_version": 1, "reason": text}, format="json"
    )
    assert proposed.status_code == 201, proposed.content
    release_id = proposed.json()["id"]
    rejected = _api(approver, "approver").post(
        f"/api/v1/releases/{release_id}/reject", {"reason": text}, format="json"
    )
    assert rejected.status_code == 200, rejected.content
    settings.WEBHOOK_ALLOW_LOOPBACK = True  # nothing is sent here: only the page is read
    hook = {"url": "http://127.0.0.1:9/specpact", "events": ["*"], "description": text}
    assert _api(admin, "admin").post("/api/v1/webhooks/", hook, format="json").status_code == 201

    # Stored as typed.
    assert Route.objects.get(slug=slug).description == text
    assert ContractVersion.objects.get(route__slug=slug).document["description"] == text
    assert Decision.objects.get(release_id=release_id).reason == text
    assert AuditEvent.objects.filter(reason=text).exists()
    assert Subscription.objects.get().description == text

    page = Client()
    page.force_login(admin)
    for url in (
        "/",
        f"/routes/{slug}/",
        f"/routes/{slug}/versions/1/",
        f"/releases/{release_id}/",
        "/releases/",
        "/audit/",
        "/webhooks/",
    ):
        answer = page.get(url)
        assert answer.status_code == 200, url
        html = answer.content.decode()
        if url in ("/releases/", "/"):
            assert "<script>alert(" not in html  # listed pages may not show the text at all
            continue
        _assert_shown_escaped(html, text)


def test_a_nul_in_any_text_field_is_a_400_naming_it_and_writes_nothing(
    route_v1: Route, proposer: Any
) -> None:
    operator = _api(proposer, "operator")
    slug = route_v1.slug
    before = AuditEvent.objects.count()
    for method, url, body, field in (
        ("post", "/api/v1/routes/", {"slug": "other-lane", "description": NUL}, "description"),
        ("patch", f"/api/v1/routes/{slug}/", {"description": NUL}, "description"),
        ("post", "/api/v1/releases/", {"route": slug, "candidate_version": 1, "reason": NUL}, "reason"),
        ("post", f"/api/v1/routes/{slug}/versions/", variant(example(), description=NUL), "description"),
    ):
        answer = getattr(operator, method)(url, body, format="json")
        assert answer.status_code == 400, (url, answer.content)
        assert field in {e["path"] for e in answer.json()["errors"]}, (url, answer.json())
    assert AuditEvent.objects.count() == before
    assert not Route.objects.filter(slug="other-lane").exists()
    assert "\x00" not in Route.objects.get(slug=slug).description
