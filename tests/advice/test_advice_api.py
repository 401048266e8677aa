"""The advice endpoints: create, list, detail, cancel, draft, propose; route scope (an
outsider gets 404, as if nothing were there), roles, and hostile input as problem+json."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from advice_app.models import AdviceRun
from benchmarks_app.models import Run
from contracts_app.models import Route
from tests.support.actors import Caller, as_caller
from tests.support.advice import LANE, OPTIONS, active_route, play_all

pytestmark = pytest.mark.django_db

BODY: dict[str, Any] = {
    "lanes": [LANE],
    "candidates": [{"method": "ngram", "tokens": 4}, {"method": "ngram", "tokens": 2}],
    "budget": 2000,
    "seed": 1,
    "options": OPTIONS,
}


@pytest.fixture
def route(proposer: Any, approver: Any) -> Route:
    return active_route(proposer=proposer, approver=approver)


def _create(client: APIClient, body: Any = None) -> Any:
    return client.post(
        f"/api/v1/routes/{route_slug()}/advice/", body if body is not None else BODY, format="json"
    )


def route_slug() -> str:
    return "contract-summaries"


def _problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    return dict(response.json())


def test_a_pipeline_asks_and_reads_the_advice(route: Route, pipeline: Caller) -> None:
    client = pipeline.client()
    created = _create(client)
    assert created.status_code == 201, created.content
    body = created.json()
    assert created["Location"] == f"/api/v1/advice/{body['id']}/"
    assert (body["route"], body["state"], body["based_on"], body["engine"]) == (
        "contract-summaries", "measuring", 1, "vllm"
    )  # fmt: skip
    assert [c["name"] for c in body["candidates"]] == ["ngram-4", "ngram-2"]
    assert [(r["candidate"], r["round"], r["recorded"]) for r in body["runs"]] == [
        ("ngram-2", 1, False), ("ngram-4", 1, False)
    ]  # fmt: skip
    assert body["spent"] == {LANE: 0} and body["recommendations"] == {}
    listed = client.get("/api/v1/routes/contract-summaries/advice/").json()
    assert [a["id"] for a in listed["results"]] == [body["id"]]
    assert client.get(f"/api/v1/advice/{body['id']}/").json()["id"] == body["id"]


def test_out_of_scope_it_is_not_there(route: Route, pipeline: Caller, outsider: Caller) -> None:
    advice_id = _create(pipeline.client()).json()["id"]
    client = outsider.client()
    for response in (
        client.get("/api/v1/routes/contract-summaries/advice/"),
        _create(client),
        client.get(f"/api/v1/advice/{advice_id}/"),
        client.post(f"/api/v1/advice/{advice_id}/cancel", {}, format="json"),
        client.post(f"/api/v1/advice/{advice_id}/draft", {}, format="json"),
        client.post(f"/api/v1/advice/{advice_id}/propose", {}, format="json"),
    ):
        problem = _problem(response, 404)
        assert "contract-summaries" not in problem.get("detail", "") or "No route" in problem["detail"]
    assert AdviceRun.objects.count() == 1 and AdviceRun.objects.get().state == "measuring"


def test_a_viewer_reads_but_may_not_ask(route: Route, viewer: Any, pipeline: Caller) -> None:
    advice_id = _create(pipeline.client()).json()["id"]
    client = as_caller("viewer", viewer).client()
    assert client.get(f"/api/v1/advice/{advice_id}/").status_code == 200
    _problem(_create(client), 403)
    _problem(client.post(f"/api/v1/advice/{advice_id}/cancel", {}, format="json"), 403)


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({**BODY, "candidates": "ngram:4"}, "candidates"),
        ({**BODY, "candidates": ["ngram"]}, "candidates.0"),
        ({**BODY, "candidates": [{"method": "ngram", "tokens": 1e300}]}, "candidates[0].tokens"),
        ({**BODY, "candidates": [{"method": {"$ne": 1}, "tokens": 3}]}, "candidates[0].method"),
        ({**BODY, "candidates": [{"method": "ngram", "tokens": 3, "assets": "all"}]}, "candidates[0].assets"),
        ({**BODY, "candidates": [{"method": "ngram", "tokens": 3, "name": "x" * 500}]}, "candidates[0].name"),
        ({**BODY, "lanes": ["../../etc/passwd"]}, "lanes[0]"),
        ({**BODY, "lanes": "summarization"}, "lanes"),
        ({**BODY, "budget": "lots"}, "budget"),
        ({**BODY, "budget": -5}, "budget"),
        ({**BODY, "budget": 10**30}, "budget"),
        ({**BODY, "seed": 2**70}, "seed"),
        ({**BODY, "options": {"n_boot": 10**9}}, "options.n_boot"),
        ({k: v for k, v in BODY.items() if k != "budget"}, "budget"),
        ([1, 2, 3], ""),
    ],
    ids=[
        "candidates-text", "candidate-not-object", "tokens-huge-float", "method-object", "assets-text",
        "name-long", "lane-path", "lanes-text", "budget-text", "budget-negative", "budget-huge", "seed-huge",
        "n-boot-huge", "budget-missing", "body-list",
    ],
)  # fmt: skip
def test_hostile_input_is_a_problem_naming_the_field(
    route: Route, pipeline: Caller, body: Any, path: str
) -> None:
    problem = _problem(_create(pipeline.client(), body), 400)
    paths = {e["path"] for e in problem["errors"]}
    assert path in paths, problem
    assert not AdviceRun.objects.exists() and not Run.objects.exists()


def test_draft_and_propose_through_the_api(route: Route, pipeline: Caller) -> None:
    client = pipeline.client()
    advice_id = _create(client, {**BODY, "candidates": [{"method": "ngram", "tokens": 4}]}).json()["id"]
    _problem(client.post(f"/api/v1/advice/{advice_id}/draft", {}, format="json"), 409)  # still measuring
    play_all(AdviceRun.objects.get(pk=advice_id))
    detail = client.get(f"/api/v1/advice/{advice_id}/").json()
    assert detail["state"] == "finished" and detail["verdicts"] == {LANE: "candidate"}
    assert detail["recommendations"][LANE]["chosen"]["name"] == "ngram-4"
    assert all(r["recorded"] for r in detail["runs"]) and detail["spent"][LANE] > 0
    draft = client.post(f"/api/v1/advice/{advice_id}/draft", {}, format="json")
    assert draft.status_code == 201, draft.content
    assert draft["Location"] == f"/api/v1/routes/contract-summaries/versions/{draft.json()['version']}/"
    paths = {c["path"] for c in draft.json()["diff_from_active"]}
    assert {"speculation.method", "speculation.num_speculative_tokens"} <= paths
    assert client.post(f"/api/v1/advice/{advice_id}/draft", {}, format="json").status_code == 200
    proposed = client.post(f"/api/v1/advice/{advice_id}/propose", {"reason": "as advised"}, format="json")
    assert proposed.status_code == 201, proposed.content
    assert proposed.json()["candidate_version"] == draft.json()["version"]
    assert proposed.json()["state"] == "benchmarking"
    again = _problem(client.post(f"/api/v1/advice/{advice_id}/propose", {}, format="json"), 409)
    assert "proposed already" in again["detail"]


def test_cancel_through_the_api(route: Route, pipeline: Caller) -> None:
    client = pipeline.client()
    advice_id = _create(client).json()["id"]
    cancelled = client.post(f"/api/v1/advice/{advice_id}/cancel", {"reason": "not now"}, format="json")
    assert cancelled.status_code == 200, cancelled.content
    assert cancelled.json()["state"] == "cancelled"
    assert {r["state"] for r in cancelled.json()["runs"]} == {"cancelled"}
    _problem(client.post(f"/api/v1/advice/{advice_id}/cancel", {}, format="json"), 409)


def test_a_gpu_minute_budget_is_taken_shown_and_refused_by_field(route: Route, pipeline: Caller) -> None:
    client = pipeline.client()
    problem = _problem(_create(client, {**BODY, "budget_gpu_minutes": "an hour"}), 400)
    assert {e["path"] for e in problem["errors"]} == {"budget_gpu_minutes"}
    assert not AdviceRun.objects.exists()
    created = _create(client, {**BODY, "budget_gpu_minutes": 45})
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["budget_gpu_minutes"] == 45.0 and body["gpu_minutes_spent"] == 0
