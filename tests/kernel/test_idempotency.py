"""Idempotency-Key on creating POSTs (kernel/api/idempotency.py), against real PostgreSQL."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from benchmarks_app.models import Run
from contracts_app.models import Route
from kernel.api.idempotency import purge_expired
from kernel.models import IdempotencyKey
from releases_app.models import Release
from tests.support.factories import example, make_token, make_user
from tests.support.releases import cosmetic_change


def _client(user: Any, role: str = "operator") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {make_token(user, role).key}")
    return client


@pytest.mark.django_db
def test_a_repeat_with_the_same_key_returns_the_first_answer_and_creates_nothing(
    route_v1: Route, proposer: Any
) -> None:
    client = _client(proposer)
    body = {"route": route_v1.slug, "candidate_version": cosmetic_change(route_v1).number}
    first = client.post("/api/v1/releases/", body, format="json", HTTP_IDEMPOTENCY_KEY="rel-1")
    again = client.post("/api/v1/releases/", body, format="json", HTTP_IDEMPOTENCY_KEY="rel-1")
    assert first.status_code == 201, first.content
    assert again.status_code == 201
    assert again.json() == first.json()
    assert again["Location"] == first["Location"]
    assert again["ETag"] == first["ETag"]
    assert again["Idempotent-Replayed"] == "true"
    assert Release.objects.filter(route=route_v1).count() == 2  # release 1 (the fixture's) and this one


@pytest.mark.django_db
def test_without_a_key_a_second_proposal_is_the_conflict_it_always_was(
    route_v1: Route, proposer: Any
) -> None:
    client = _client(proposer)
    body = {"route": route_v1.slug, "candidate_version": cosmetic_change(route_v1).number}
    assert client.post("/api/v1/releases/", body, format="json").status_code == 201
    assert client.post("/api/v1/releases/", body, format="json").status_code == 409


@pytest.mark.django_db
def test_the_same_key_with_another_body_is_a_422_naming_the_header(proposer: Any) -> None:
    client = _client(proposer)
    first = client.post("/api/v1/routes/", {"slug": "lane-a"}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    other = client.post("/api/v1/routes/", {"slug": "lane-b"}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert first.status_code == 201
    assert other.status_code == 422
    assert other["Content-Type"].startswith("application/problem+json")
    assert [e["path"] for e in other.json()["errors"]] == ["Idempotency-Key"]
    assert not Route.objects.filter(slug="lane-b").exists()


@pytest.mark.django_db
def test_keys_are_per_token(proposer: Any) -> None:
    mine, theirs = _client(proposer), _client(make_user("other-op", "operator"))
    assert (
        mine.post("/api/v1/routes/", {"slug": "lane-a"}, format="json", HTTP_IDEMPOTENCY_KEY="k").status_code
        == 201
    )
    # Another token's same key is another key: its request runs (and conflicts on the slug).
    answer = theirs.post("/api/v1/routes/", {"slug": "lane-a"}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert answer.status_code == 409
    assert not answer.has_header("Idempotent-Replayed")


@pytest.mark.django_db
def test_a_failed_request_keeps_no_key_so_it_can_be_retried(proposer: Any) -> None:
    client = _client(proposer)
    bad = client.post("/api/v1/routes/", {"slug": "Not A Slug!"}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert bad.status_code == 400
    assert not IdempotencyKey.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["", " ", "x" * 256, "caf\u00e9"])
def test_a_malformed_key_is_a_400_naming_the_header(proposer: Any, key: str) -> None:
    answer = _client(proposer).post(
        "/api/v1/routes/", {"slug": "lane-a"}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    assert answer.status_code == 400
    assert [e["path"] for e in answer.json()["errors"]] == ["Idempotency-Key"]
    assert not Route.objects.filter(slug="lane-a").exists()


@pytest.mark.django_db
def test_expired_keys_are_purged_and_then_free_again(proposer: Any, settings: Any) -> None:
    client = _client(proposer)
    assert (
        client.post(
            "/api/v1/routes/", {"slug": "lane-a"}, format="json", HTTP_IDEMPOTENCY_KEY="k"
        ).status_code
        == 201
    )
    IdempotencyKey.objects.update(expires_at="2000-01-01T00:00:00Z")
    assert purge_expired() == 1
    assert (
        client.post(
            "/api/v1/routes/", {"slug": "lane-b"}, format="json", HTTP_IDEMPOTENCY_KEY="k"
        ).status_code
        == 201
    )


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_repeats_create_one_object_and_all_get_its_answer(proposer: Any) -> None:
    key = make_token(proposer, "operator").key
    barrier = threading.Barrier(20)
    answers: list[tuple[int, Any]] = []
    lock = threading.Lock()
    idem = str(uuid.uuid4())

    def post() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        try:
            barrier.wait()
            answer = client.post(
                "/api/v1/routes/",
                {"slug": "raced-lane", "description": "once"},
                format="json",
                HTTP_IDEMPOTENCY_KEY=idem,
            )
            with lock:
                answers.append((answer.status_code, answer.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert Counter(code for code, _ in answers) == Counter({201: 20})
    assert len({str(body) for _, body in answers}) == 1
    assert Route.objects.filter(slug="raced-lane").count() == 1
    assert IdempotencyKey.objects.count() == 1


@pytest.mark.django_db
def test_a_repeated_run_request_starts_one_run(versions: Any, proposer: Any) -> None:
    client = _client(proposer)
    body = {
        "route": "contract-summaries",
        "baseline_version": 1,
        "candidate_version": 2,
        "lane": "extraction",
    }
    first = client.post("/api/v1/runs/", body, format="json", HTTP_IDEMPOTENCY_KEY="run-1")
    again = client.post("/api/v1/runs/", body, format="json", HTTP_IDEMPOTENCY_KEY="run-1")
    assert first.status_code == 201, first.content
    assert (again.status_code, again.json()["id"]) == (201, first.json()["id"])
    assert Run.objects.count() == 1
    assert client.post("/api/v1/runs/", body, format="json").status_code == 201  # no key: a new run
    assert Run.objects.count() == 2


@pytest.mark.django_db
def test_a_repeated_version_upload_replays_the_first_answer(proposer: Any) -> None:
    client = _client(proposer)
    url = "/api/v1/routes/contract-summaries/versions/"
    first = client.post(url, example(), format="json", HTTP_IDEMPOTENCY_KEY="v-1")
    again = client.post(url, example(), format="json", HTTP_IDEMPOTENCY_KEY="v-1")
    assert first.status_code == again.status_code == 201  # the replay, not the "already stored" 200
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
