"""RunFilterSet and WorkerFilterSet: each filter on its own through the API, and bad
values refused with a problem+json 400 naming the parameter."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from audit_app.actors import Actor
from benchmarks_app.models import Run, Worker
from benchmarks_app.services.lifecycle import run_start
from benchmarks_app.services.workers import worker_revoke
from contracts_app.models import Route
from releases_app.services import release_create
from tests.support.api import assert_filter_refused
from tests.support.factories import example, make_version, variant
from tests.support.workers import GPU_HARDWARE, openai_run, register

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(viewer: Any) -> APIClient:
    client = APIClient()
    client.force_login(viewer)
    return client


@pytest.fixture
def runs(versions: tuple[Any, Any], operator: Any) -> dict[str, Any]:
    """queued (no worker), running on w1, two of a release (extraction, summarization),
    and one on another route."""
    w1 = register("w1").worker
    queued = openai_run(versions)
    running = openai_run(versions, worker=w1)
    run_start(run_id=running.pk, worker=w1, attempt=1)
    Route.objects.filter(pk=versions[0].route_id).update(active_version=versions[0])
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:9/0"):
        release = release_create(route="contract-summaries", candidate_version=2, actor=operator)
    doc = variant(example("contract-summaries-ngram"), route="other-route")
    other = (
        make_version("other-route", variant(doc, **{"speculation.num_speculative_tokens": 4})),
        make_version("other-route", variant(doc, **{"speculation.num_speculative_tokens": 6})),
    )
    elsewhere = openai_run(other)
    of_release = list(Run.objects.filter(release=release).order_by("lane"))
    return {"queued": queued, "running": running, "release": release, "of_release": of_release,
            "elsewhere": elsewhere, "w1": w1}  # fmt: skip


def listed(client: APIClient, query: dict[str, Any]) -> set[int]:
    response = client.get("/api/v1/runs/", query)
    assert response.status_code == 200, response.content
    return {r["id"] for r in response.json()["results"]}


def test_runs_by_state(client: APIClient, runs: dict[str, Any]) -> None:
    assert listed(client, {"state": "running"}) == {runs["running"].pk}
    everything = set(Run.objects.values_list("pk", flat=True))
    assert listed(client, {"state": "queued,running"}) == everything
    assert listed(client, {"state": "succeeded"}) == set()


def test_runs_by_route(client: APIClient, runs: dict[str, Any]) -> None:
    assert listed(client, {"route": "other-route"}) == {runs["elsewhere"].pk}


def test_runs_by_release(client: APIClient, runs: dict[str, Any]) -> None:
    assert listed(client, {"release": runs["release"].pk}) == {r.pk for r in runs["of_release"]}


def test_runs_by_worker(client: APIClient, runs: dict[str, Any]) -> None:
    assert listed(client, {"worker": runs["w1"].pk}) == {runs["running"].pk}


def test_runs_by_lane(client: APIClient, runs: dict[str, Any]) -> None:
    summarization = [r.pk for r in runs["of_release"] if r.lane == "summarization"]
    assert listed(client, {"lane": "summarization"}) == set(summarization) and summarization


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("state", "done"),
        ("route", "Not A Slug"),
        ("release", "abc"),
        ("release", "1.5"),
        ("worker", "0"),
        ("lane", "Bad Lane"),
    ],
)
def test_runs_refuse_a_bad_value_naming_it(
    client: APIClient, runs: dict[str, Any], param: str, value: str
) -> None:
    assert_filter_refused(client.get("/api/v1/runs/", {param: value}), param)


@pytest.fixture
def fleet(admin: Any) -> dict[str, Worker]:
    online = register("cpu-online").worker
    gpu = register("gpu-online", hardware=GPU_HARDWARE).worker
    silent = register("cpu-silent").worker
    Worker.objects.filter(pk=silent.pk).update(last_heartbeat_at=timezone.now() - timedelta(days=1))
    revoked = worker_revoke(
        worker=register("cpu-revoked").worker, actor=Actor.for_user(admin), reason="retired"
    )
    return {"online": online, "gpu": gpu, "silent": silent, "revoked": revoked}


def names(client: APIClient, query: dict[str, str]) -> list[str]:
    response = client.get("/api/v1/workers/", query)
    assert response.status_code == 200, response.content
    return sorted(w["name"] for w in response.json())


def test_workers_by_status(client: APIClient, fleet: dict[str, Worker]) -> None:
    assert names(client, {"status": "online"}) == ["cpu-online", "gpu-online"]
    assert names(client, {"status": "offline"}) == ["cpu-silent"]
    assert names(client, {"status": "revoked"}) == ["cpu-revoked"]
    assert {w["status"] for w in client.get("/api/v1/workers/", {"status": "offline"}).json()} == {"offline"}


def test_workers_by_hardware_class(client: APIClient, fleet: dict[str, Worker]) -> None:
    assert names(client, {"hardware_class": fleet["gpu"].hardware_class}) == ["gpu-online"]
    assert fleet["gpu"].hardware_class != fleet["online"].hardware_class


def test_workers_refuse_a_bad_status(client: APIClient, fleet: dict[str, Worker]) -> None:
    assert_filter_refused(client.get("/api/v1/workers/", {"status": "asleep"}), "status")
