"""The routes overview, route, version and diff pages: they render for a signed-in user,
send others to the login page, and read with a fixed number of queries."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.support.factories import example, make_version, variant
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(viewer: Any) -> Client:
    client = Client()
    client.force_login(viewer)
    return client


def test_pages_need_a_login(db: None) -> None:
    response = Client().get("/")
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_overview_says_what_to_do_when_empty(signed_in: Client) -> None:
    body = signed_in.get("/").content.decode()
    assert "No routes yet" in body


def test_overview_lists_routes_in_constant_queries(signed_in: Client) -> None:
    make_version("contract-summaries", example())
    # The session, the user, the user's role row (their route scope), the page count, the
    # page's rows with their live endpoints' conformance (on SQLite one prefetch more), the
    # drifted live endpoints.
    with assert_num_queries(6):
        assert signed_in.get("/").status_code == 200
    for name in ("support-chat-eagle3", "doc-review-ngram-tgi", "agent-draft-model-vllm"):
        make_version(example(name)["route"], example(name))
    with assert_num_queries(6):
        assert signed_in.get("/").status_code == 200


def test_route_page_shows_history_and_diff_picker(signed_in: Client) -> None:
    make_version("contract-summaries", example())
    make_version("contract-summaries", variant(example(), description="v2"))
    body = signed_in.get("/routes/contract-summaries/").content.decode()
    assert "v1" in body and "v2" in body
    assert 'name="from"' in body and 'name="to"' in body
    assert "sha256:" in body


def test_version_page_shows_the_engine_command(signed_in: Client) -> None:
    make_version("contract-summaries", example())
    body = signed_in.get("/routes/contract-summaries/versions/1/").content.decode()
    assert "vllm serve" in body
    assert "--speculative-config" in body


def test_diff_page_shows_changes_with_impact_badges(signed_in: Client) -> None:
    make_version("contract-summaries", example())
    make_version(
        "contract-summaries",
        variant(example(), description="changed", **{"speculation.num_speculative_tokens": 3}),
    )
    body = signed_in.get("/routes/contract-summaries/diff/?from=1&to=2").content.decode()
    assert "badge-route-identity" in body
    assert "badge-cosmetic" in body
    assert "speculation.num_speculative_tokens" in body.replace("<wbr>", "")  # it may wrap at its dots
    # route-identity rows come first
    assert body.index("badge-route-identity") < body.index("badge-cosmetic")


def test_diff_page_with_a_missing_version_is_a_404_page(signed_in: Client) -> None:
    make_version("contract-summaries", example())
    assert signed_in.get("/routes/contract-summaries/diff/?from=1&to=9").status_code == 404
    assert signed_in.get("/routes/nope/").status_code == 404
