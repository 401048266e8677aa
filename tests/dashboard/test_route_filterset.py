"""RouteFilterSet through `GET /api/v1/routes/`, the overview's OverviewFilterSet (its
release filters) directly (the page itself is tested in test_overview.py), and
VersionFilterSet through a route's versions."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from contracts_app.filtersets import RouteFilterSet
from contracts_app.models import Route
from dashboard_app.filters import OverviewFilterSet
from releases_app.models import Release
from releases_app.services import release_approve, release_create
from tests.support.actors import Caller
from tests.support.api import assert_filter_refused
from tests.support.factories import example, make_version, variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet(benchmarked: Release, proposer: Any, approver: Any) -> Release:
    """contract-summaries (method none active, a gated release pending), support-chat
    (eagle3 active, never gated), doc-review (uploaded only)."""
    make_version("support-chat", example("support-chat-eagle3"))
    first = release_create(route="support-chat", candidate_version=1, actor=proposer)
    release_approve(release=first, actor=approver, reason="first version")
    make_version("doc-review", example("doc-review-ngram-tgi"))
    return benchmarked


@pytest.fixture
def client(viewer: Any) -> APIClient:
    return Caller("v", user=viewer).client()


def slugs(client: APIClient, query: dict[str, str]) -> list[str]:
    response = client.get("/api/v1/routes/", query)
    assert response.status_code == 200, response.content
    return [r["slug"] for r in response.json()["results"]]


def test_method(fleet: Release, client: APIClient) -> None:
    assert slugs(client, {"method": "eagle3"}) == ["support-chat"]
    assert slugs(client, {"method": "none"}) == ["contract-summaries"]
    assert slugs(client, {"method": "medusa"}) == []


def test_lane_is_one_the_active_version_allows(fleet: Release, client: APIClient) -> None:
    assert slugs(client, {"lane": "chat"}) == ["support-chat"]
    assert slugs(client, {"lane": "extraction"}) == ["contract-summaries"]
    # Excluded lanes and near names do not count.
    assert slugs(client, {"lane": "agent"}) == []
    assert slugs(client, {"lane": "extract"}) == []


def overview_slugs(query: dict[str, str]) -> list[str]:
    filterset = OverviewFilterSet(query, queryset=Route.objects.all())
    assert filterset.is_valid(), filterset.errors
    return sorted(filterset.qs.values_list("slug", flat=True))


def test_verdict_is_the_latest_gate_verdict_or_none(fleet: Release) -> None:
    assert overview_slugs({"verdict": fleet.gate_verdict}) == ["contract-summaries"]
    assert overview_slugs({"verdict": "none"}) == ["doc-review", "support-chat"]
    other = next(v for v in ("pass", "marginal", "fail") if v != fleet.gate_verdict)
    assert overview_slugs({"verdict": other}) == []


def test_pending(fleet: Release) -> None:
    assert overview_slugs({"pending": "yes"}) == ["contract-summaries"]
    assert overview_slugs({"pending": "no"}) == ["doc-review", "support-chat"]


def test_filters_combine(fleet: Release) -> None:
    assert overview_slugs({"method": "eagle3", "pending": "yes"}) == []
    assert overview_slugs({"method": "none", "pending": "yes", "verdict": fleet.gate_verdict}) == [
        "contract-summaries"
    ]


@pytest.mark.parametrize(
    ("param", "value"),
    [("method", "warp-drive"), ("lane", "NOT A LANE")],
)
def test_the_api_refuses_a_bad_value_naming_it(
    fleet: Release, client: APIClient, param: str, value: str
) -> None:
    assert_filter_refused(client.get("/api/v1/routes/", {param: value}), param)


def test_the_overview_set_names_a_bad_release_filter(db: None) -> None:
    filterset = OverviewFilterSet({"verdict": "great", "pending": "maybe"}, queryset=Route.objects.all())
    assert not filterset.is_valid()
    assert set(filterset.errors) == {"verdict", "pending"}


def test_the_set_names_each_bad_value(db: None) -> None:
    filterset = RouteFilterSet({"method": "warp-drive", "lane": "NOT A LANE"}, queryset=Route.objects.all())
    assert not filterset.is_valid()
    assert set(filterset.errors) == {"method", "lane"}
    assert "a lane is lowercase" in filterset.errors["lane"][0]


def test_versions_by_digest_and_method(viewer: Any) -> None:
    doc = example("contract-summaries-ngram")
    v1 = make_version("contract-summaries", doc)
    v2 = make_version("contract-summaries", variant(doc, **{"speculation": {"method": "none"}}))
    client = Caller("v", user=viewer).client()

    def numbers(query: dict[str, str]) -> list[int]:
        response = client.get("/api/v1/routes/contract-summaries/versions/", query)
        assert response.status_code == 200, response.content
        return [v["version"] for v in response.json()["results"]]

    assert numbers({}) == [2, 1]
    assert numbers({"digest": v1.digest}) == [1]
    assert numbers({"digest": "sha256:" + "0" * 64}) == []
    assert numbers({"method": "none"}) == [v2.number]
    assert numbers({"method": v1.speculation_method}) == [1]
    for param, value in (("digest", "md5:abc"), ("method", "warp-drive")):
        response = client.get("/api/v1/routes/contract-summaries/versions/", {param: value})
        assert_filter_refused(response, param)
