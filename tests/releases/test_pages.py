from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from audit_app.models import AuditEvent
from contracts_app.models import Route
from releases_app.models import Release
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db

JUSTIFICATION = "Acceptable: TTFT regression only at concurrency 32, which this lane never reaches."


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _csrf_client(user: Any, page: str) -> tuple[Client, str]:
    """A client that enforces CSRF like a browser, and the token from the page's form."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    html = client.get(page).content.decode()
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, "the page has no CSRF token"
    return client, match.group(1)


def test_pages_need_a_login(awaiting: Release) -> None:
    for url in ("/releases/", f"/releases/{awaiting.pk}/", "/audit/"):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/login/")


def test_the_list_shows_releases_and_filters(awaiting: Release, viewer: Any) -> None:
    html = _client(viewer).get("/releases/").content.decode()
    assert f"#{awaiting.pk}" in html and "awaiting review" in html
    filtered = _client(viewer).get("/releases/?state=rejected").content.decode()
    assert f"#{awaiting.pk}<" not in filtered
    assert "No releases match these filters" in filtered
    assert _client(viewer).get("/releases/?state=bogus").status_code == 200


def test_the_release_page_shows_diff_evidence_and_timeline(awaiting: Release, viewer: Any) -> None:
    html = _client(viewer).get(f"/releases/{awaiting.pk}/").content.decode()
    assert "badge-cosmetic" in html and "description" in html
    assert "No benchmark" in html  # the evidence slot, before any run
    assert "release.proposed" in html and "release.benchmark_skipped" in html
    assert 'aria-label="Approve"' not in html  # a viewer gets no forms


def test_an_approver_sees_approve_and_the_proposer_does_not(
    awaiting: Release, approver: Any, proposer: Any
) -> None:
    assert 'aria-label="Approve"' in _client(approver).get(f"/releases/{awaiting.pk}/").content.decode()
    mine = _client(proposer).get(f"/releases/{awaiting.pk}/").content.decode()
    assert 'aria-label="Approve"' not in mine
    assert 'aria-label="Cancel"' in mine
    assert "another approver must approve it" in mine


def test_a_failed_gate_shows_the_override_fields(failed_gate: Release, approver: Any) -> None:
    html = _client(approver).get(f"/releases/{failed_gate.pk}/").content.decode()
    assert 'name="override"' in html and 'name="justification"' in html
    assert "badge-route-identity" in html


def test_approving_through_the_page_with_csrf(awaiting: Release, approver: Any) -> None:
    page = f"/releases/{awaiting.pk}/"
    client, token = _csrf_client(approver, page)
    body = {"reason": "looks right", "lock_version": awaiting.lock_version}
    assert client.post(f"{page}approve", body).status_code == 403  # no CSRF token
    response = client.post(f"{page}approve", {**body, "csrfmiddlewaretoken": token}, follow=True)
    assert response.status_code == 200
    assert f"Release {awaiting.pk} approved and activated." in response.content.decode()
    assert Release.objects.get(pk=awaiting.pk).state == "active"


def test_overriding_through_the_page(failed_gate: Release, approver: Any) -> None:
    page = f"/releases/{failed_gate.pk}/"
    body = {"reason": "ship", "lock_version": failed_gate.lock_version, "override": "on"}
    short = _client(approver).post(f"{page}approve", {**body, "justification": "fine"}, follow=True)
    assert "at least 20 characters" in short.content.decode()
    assert Release.objects.get(pk=failed_gate.pk).state == "awaiting_review"
    _client(approver).post(f"{page}approve", {**body, "justification": JUSTIFICATION})
    assert Release.objects.get(pk=failed_gate.pk).state == "active"


def test_a_refused_action_is_a_message_not_a_500(awaiting: Release, approver: Any) -> None:
    events = AuditEvent.objects.count()
    page = f"/releases/{awaiting.pk}/"
    stale = _client(approver).post(f"{page}reject", {"reason": "no", "lock_version": 999}, follow=True)
    assert stale.status_code == 200
    assert "changed since you read it" in stale.content.decode()
    no_reason = _client(approver).post(f"{page}reject", {"reason": "", "lock_version": 1}, follow=True)
    assert "Not rejected: reason" in no_reason.content.decode()
    assert _client(approver).post(f"{page}explode", {"reason": "x"}).status_code == 404
    assert Release.objects.get(pk=awaiting.pk).state == "awaiting_review"
    assert AuditEvent.objects.count() == events


def test_self_approval_through_the_page_is_refused(route_v1: Route, second_approver: Any) -> None:
    from releases_app.services import release_create

    mine = release_create(
        route=route_v1, candidate_version=cosmetic_change(route_v1).number, actor=second_approver
    )
    response = _client(second_approver).post(
        f"/releases/{mine.pk}/approve", {"reason": "mine", "lock_version": mine.lock_version}, follow=True
    )
    assert "Four eyes" in response.content.decode()
    assert Release.objects.get(pk=mine.pk).state == "awaiting_review"


def test_proposing_through_the_page(route_v1: Route, operator: Any) -> None:
    v2 = cosmetic_change(route_v1)
    response = _client(operator).post(
        "/releases/propose", {"route": route_v1.slug, "candidate_version": v2.number}, follow=True
    )
    assert "proposed: awaiting review" in response.content.decode()
    again = _client(operator).post(
        "/releases/propose", {"route": route_v1.slug, "candidate_version": v2.number}
    )
    assert again.status_code == 302


def test_rollback_through_the_page(route_v1: Route, approver: Any, proposer: Any) -> None:
    from tests.support.releases import activate

    release = activate(cosmetic_change(route_v1), proposer, approver)
    html = _client(approver).get(f"/releases/{release.pk}/").content.decode()
    assert 'aria-label="Roll back"' in html and "<code>previous</code>" in html
    _client(approver).post(
        f"/releases/{release.pk}/rollback", {"reason": "bad", "lock_version": release.lock_version}
    )
    assert Route.objects.get(pk=route_v1.pk).active_version.number == 1
