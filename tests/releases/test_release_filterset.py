"""ReleaseFilterSet: route and state (one or a comma list), bad values refused by the API
and named by the page, and the page's pagination links keeping the filters."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from contracts_app.models import Route
from releases_app.filtersets import ReleaseFilterSet
from releases_app.models import Release
from releases_app.services import release_cancel, release_create
from tests.support.actors import Caller
from tests.support.api import assert_filter_refused
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db


def ids(query: dict[str, str]) -> list[int]:
    filterset = ReleaseFilterSet(query, queryset=Release.objects.order_by("id"))
    assert filterset.is_valid(), filterset.errors
    return [r.pk for r in filterset.qs]


def test_route(awaiting: Release) -> None:
    everything = list(Release.objects.order_by("id").values_list("pk", flat=True))
    assert ids({"route": awaiting.route.slug}) == everything
    assert ids({"route": "elsewhere"}) == []


def test_state_one_or_several(awaiting: Release) -> None:
    first = Release.objects.get(state="active").pk
    assert ids({"state": "awaiting_review"}) == [awaiting.pk]
    assert ids({"state": "active,awaiting_review"}) == [first, awaiting.pk]
    assert ids({"state": "rejected"}) == []
    assert ids({"state": ""}) == [first, awaiting.pk]


@pytest.mark.parametrize(
    ("param", "value"),
    [("state", "bogus"), ("state", "active,bogus"), ("route", "Not A Slug!"), ("route", "x" * 65)],
)
def test_the_api_refuses_a_bad_value_naming_it(
    awaiting: Release, viewer: Any, param: str, value: str
) -> None:
    response = Caller("v", user=viewer).client().get("/api/v1/releases/", {param: value})
    assert_filter_refused(response, param)


def test_the_page_names_a_bad_value_and_lists_every_release(awaiting: Release, viewer: Any) -> None:
    client = Client()
    client.force_login(viewer)
    html = client.get("/releases/", {"state": "bogus", "route": "elsewhere"}).content.decode()
    assert f"#{awaiting.pk}<" in html
    assert "state: Select a valid choice." in html and "(filters ignored)" in html


def test_the_page_links_keep_the_filters(route_v1: Route, proposer: Any, viewer: Any) -> None:
    for i in range(51):  # the page holds 50
        release = release_create(
            route=route_v1, candidate_version=cosmetic_change(route_v1, f"c{i}").number, actor=proposer
        )
        release_cancel(release=release, actor=proposer, reason="counting pages")
    client = Client()
    client.force_login(viewer)
    html = client.get("/releases/", {"state": "cancelled", "route": route_v1.slug}).content.decode()
    assert f'href="?state=cancelled&amp;route={route_v1.slug}&amp;page=2"' in html
    assert "page 1 of 2" in html
