"""`GET /api/v1/routes/{slug}/checklist`: the same answers as the page, as JSON, with
absolute evidence links, under the API's roles and route scope."""

from __future__ import annotations

from typing import Any

import pytest

from releases_app.models import Release
from releases_app.services import release_approve
from tests.support.actors import Caller, as_caller
from tests.support.factories import example, make_version

pytestmark = pytest.mark.django_db

URL = "/api/v1/routes/contract-summaries/checklist"


def test_it_returns_six_answers_with_absolute_evidence_links(
    benchmarked: Release, second_approver: Any, viewer: Any
) -> None:
    release_approve(release=benchmarked, actor=second_approver, reason="gate passed")
    response = as_caller("viewer", viewer).client().get(URL)
    assert response.status_code == 200
    body = response.json()
    assert body["route"] == "contract-summaries" and body["active_version"] == 2
    assert len(body["answers"]) == 6
    for answer in body["answers"]:
        assert set(answer) == {"question", "answer", "status", "evidence"}
        for evidence in answer["evidence"]:
            assert set(evidence) == {"kind", "label", "url"}
            assert evidence["url"].startswith("http://testserver/")
    measured = body["answers"][4]
    assert measured["status"] == "measured"
    assert [e["kind"] for e in measured["evidence"]].count("run") == 2


def test_a_route_without_an_active_version_answers_missing(viewer: Any) -> None:
    make_version("contract-summaries", example())
    body = as_caller("viewer", viewer).client().get(URL).json()
    assert body["active_version"] is None
    assert {a["status"] for a in body["answers"]} == {"missing"}


def test_an_unknown_route_is_a_problem_404(viewer: Any) -> None:
    response = as_caller("viewer", viewer).client().get("/api/v1/routes/nope/checklist")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")


def test_a_token_scoped_to_another_route_does_not_see_it(outsider: Caller) -> None:
    make_version("contract-summaries", example())
    assert outsider.client().get(URL).status_code == 404


def test_a_pipeline_token_for_the_route_reads_it(pipeline: Caller) -> None:
    make_version("contract-summaries", example())
    assert pipeline.client().get(URL).status_code == 200


def test_anonymous_callers_are_refused(db: None) -> None:
    make_version("contract-summaries", example())
    from rest_framework.test import APIClient

    assert APIClient().get(URL).status_code == 401
