"""Propose vN from the route page and the version page (releases_app/views/pages.py,
release_propose): the normal release create service; a refusal is shown on the page it came
from, and a 409 for an open release links to that release."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from contracts_app.models import Route
from releases_app.models import Release
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db

PAGE = "/routes/contract-summaries/"


def _csrf_client(user: Any, page: str) -> tuple[Client, str]:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(page).content.decode())
    assert match
    return client, match.group(1)


def _propose(client: Client, token: str, number: int, back: str = "route") -> Any:
    return client.post(
        "/releases/propose",
        {
            "route": "contract-summaries",
            "candidate_version": number,
            "back": back,
            "csrfmiddlewaretoken": token,
        },
    )


def test_the_route_page_offers_propose_for_each_version_not_active(route_v1: Route, operator: Any) -> None:
    cosmetic_change(route_v1)
    client, _ = _csrf_client(operator, PAGE)
    html = client.get(PAGE).content.decode()
    assert "Propose v2" in html and "Propose v1" not in html
    assert "Edit the active version (v1)" in html
    assert "{#" not in html and "Expects route" not in html  # the includes' comments stay comments


def test_a_viewer_gets_no_authoring_forms(route_v1: Route, viewer: Any) -> None:
    cosmetic_change(route_v1)
    client = Client()
    client.force_login(viewer)
    html = client.get(PAGE).content.decode()
    assert "Propose v2" not in html and "route-authoring" not in html
    refused = client.post(
        "/releases/propose", {"route": "contract-summaries", "candidate_version": 2, "back": "route"}
    )
    assert refused.status_code == 302 and refused["Location"] == PAGE
    assert not Release.objects.filter(candidate_version__number=2).exists()


def test_proposing_from_the_route_page_creates_the_release(route_v1: Route, operator: Any) -> None:
    cosmetic_change(route_v1)
    client, token = _csrf_client(operator, PAGE)
    response = _propose(client, token, 2)
    release = Release.objects.get(candidate_version__number=2)
    assert response.status_code == 302 and response["Location"] == f"/releases/{release.pk}/"
    assert release.proposed_by == operator and release.state == "awaiting_review"


def test_a_second_proposal_names_the_open_release_with_a_link(awaiting: Release, operator: Any) -> None:
    v3 = cosmetic_change(awaiting.route, "Yet another wording.")
    client, token = _csrf_client(operator, PAGE)
    response = _propose(client, token, v3.number)
    assert response.status_code == 302 and response["Location"] == PAGE
    html = client.get(PAGE).content.decode()
    assert (
        f'release <a href="/releases/{awaiting.pk}/">#{awaiting.pk}</a> of this route is still open' in html
    )
    assert "awaiting review" in html
    assert Release.objects.filter(route=awaiting.route).count() == 2  # v1's and the open one


def test_a_refusal_from_the_version_page_returns_there(route_v1: Route, operator: Any) -> None:
    client, token = _csrf_client(operator, "/routes/contract-summaries/versions/1/")
    response = _propose(client, token, 1, back="version")
    assert response["Location"] == "/routes/contract-summaries/versions/1/"
    html = client.get(response["Location"]).content.decode()
    assert "Not proposed: Version 1 is already active" in html


def test_a_bad_back_value_falls_back_to_the_releases_page(route_v1: Route, operator: Any) -> None:
    client, token = _csrf_client(operator, PAGE)
    response = _propose(client, token, 1, back="https://evil.example/")
    assert response["Location"] == "/releases/"
