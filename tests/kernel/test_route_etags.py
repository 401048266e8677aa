"""ETag and If-Match on routes/{slug}/ (kernel/api/etags.py)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from audit_app.models import AuditEvent
from contracts_app.models import Route
from tests.support.factories import make_token
from tests.support.releases import activate, cosmetic_change

URL = "/api/v1/routes/contract-summaries/"


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(user, 'operator').key}")
    return client


@pytest.mark.django_db
def test_a_write_with_the_current_etag_passes_and_a_stale_one_is_412(route_v1: Route, proposer: Any) -> None:
    client = _client(proposer)
    etag = client.get(URL)["ETag"]
    changed = client.patch(URL, {"description": "first"}, format="json", HTTP_IF_MATCH=etag)
    assert changed.status_code == 200, changed.content
    assert changed.json()["description"] == "first"
    assert changed["ETag"] != etag
    assert client.get(URL)["ETag"] == changed["ETag"]
    stale = client.patch(URL, {"description": "second"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert stale["Content-Type"].startswith("application/problem+json")
    assert Route.objects.get(slug="contract-summaries").description == "first"
    assert AuditEvent.objects.filter(action="route.updated").count() == 1


@pytest.mark.django_db
def test_an_activation_changes_the_etag(route_v1: Route, proposer: Any, approver: Any) -> None:
    client = _client(proposer)
    etag = client.get(URL)["ETag"]
    activate(cosmetic_change(route_v1), proposer, approver)
    answer = client.patch(URL, {"description": "after"}, format="json", HTTP_IF_MATCH=etag)
    assert answer.status_code == 412


@pytest.mark.django_db
def test_a_weak_tag_never_matches_not_even_the_current_one(route_v1: Route, proposer: Any) -> None:
    client = _client(proposer)
    etag = client.get(URL)["ETag"]
    weak = client.patch(URL, {"description": "weak"}, format="json", HTTP_IF_MATCH=f"W/{etag}")
    assert weak.status_code == 412, weak.content
    assert weak["Content-Type"].startswith("application/problem+json")
    assert Route.objects.get(slug="contract-summaries").description != "weak"
    # Listed beside the strong current tag, the weak one doesn't stop the match.
    both = client.patch(URL, {"description": "both"}, format="json", HTTP_IF_MATCH=f"W/{etag}, {etag}")
    assert both.status_code == 200, both.content


@pytest.mark.django_db
def test_without_if_match_or_with_a_star_the_write_is_unconditional(route_v1: Route, proposer: Any) -> None:
    client = _client(proposer)
    assert client.patch(URL, {"description": "a"}, format="json").status_code == 200
    assert client.patch(URL, {"description": "b"}, format="json", HTTP_IF_MATCH="*").status_code == 200


@pytest.mark.django_db
def test_a_viewer_cannot_patch_and_a_bad_body_names_the_field(
    route_v1: Route, proposer: Any, viewer: Any
) -> None:
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Token {make_token(viewer, 'viewer').key}")
    assert reader.patch(URL, {"description": "x"}, format="json").status_code == 403
    bad = _client(proposer).patch(URL, {"description": 5 * "x" * 10_000}, format="json")
    assert bad.status_code == 400
    assert [e["path"] for e in bad.json()["errors"]] == ["description"]


@pytest.mark.django_db(transaction=True)
def test_two_writers_with_one_etag_one_wins_one_gets_412(route_v1: Route, proposer: Any) -> None:
    key = make_token(proposer, "operator").key
    etag = _client(proposer).get(URL)["ETag"]
    barrier = threading.Barrier(2)
    outcomes: Counter[int] = Counter()

    def write(text: str) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        try:
            barrier.wait()
            outcomes[
                client.patch(URL, {"description": text}, format="json", HTTP_IF_MATCH=etag).status_code
            ] += 1
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(t,)) for t in ("left", "right")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert outcomes == Counter({200: 1, 412: 1})
