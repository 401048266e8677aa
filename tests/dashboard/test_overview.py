"""The routes overview: every route with its lanes, active method, last verdict and
headline speedup, pending release; GET filters; one query for the rows however many
routes and releases there are."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from releases_app.models import Release
from releases_app.services import release_approve, release_create
from tests.support.benchmarked import benchmarked_release
from tests.support.factories import example, make_version
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db


def go_live(slug: str, name: str, proposer: Any, approver: Any) -> None:
    make_version(slug, example(name))
    release = release_create(route=slug, candidate_version=1, actor=proposer)
    release_approve(release=release, actor=approver, reason="first version")


@pytest.fixture
def fleet(benchmarked: Release, proposer: Any, approver: Any) -> Release:
    """contract-summaries (none active, n-gram release pending with a verdict), support-chat
    (eagle3 active, never gated), doc-review (only uploaded)."""
    go_live("support-chat", "support-chat-eagle3", proposer, approver)
    make_version("doc-review", example("doc-review-ngram-tgi"))
    return benchmarked


def slugs(client: Client, query: str = "") -> list[str]:
    body = client.get(f"/{query}").content.decode()
    return [s for s in ("contract-summaries", "doc-review", "support-chat") if f'href="/routes/{s}/"' in body]


def test_it_shows_lanes_method_verdict_speedup_and_pending(fleet: Release, signed_in: Client) -> None:
    body = signed_in.get("/").content.decode()
    row = body[body.index('href="/routes/contract-summaries/"') : body.index('href="/routes/doc-review/"')]
    assert '<span class="lane">summarization</span>' in row and "excluded: agent" in row
    assert f'<span class="badge badge-{fleet.gate_verdict}">' in row
    # None is active: the pending candidate's speedup is labelled as such, not as the route's.
    assert "×</strong>" not in row and "candidate, not active: " in row and "(summarization)" in row
    assert f'href="/releases/{fleet.pk}/">release #{fleet.pk}</a>' in row
    assert "awaiting review" in row


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ["contract-summaries", "doc-review", "support-chat"]),
        ("?method=eagle3", ["support-chat"]),
        ("?method=none", ["contract-summaries"]),
        ("?lane=chat", ["support-chat"]),
        ("?lane=extraction", ["contract-summaries"]),
        ("?verdict=none", ["doc-review", "support-chat"]),
        ("?pending=yes", ["contract-summaries"]),
        ("?pending=no", ["doc-review", "support-chat"]),
        ("?method=eagle3&pending=yes", []),
    ],
)
def test_filters(fleet: Release, signed_in: Client, query: str, expected: list[str]) -> None:
    assert slugs(signed_in, query) == expected


def test_the_verdict_filter_finds_the_gated_route(fleet: Release, signed_in: Client) -> None:
    assert slugs(signed_in, f"?verdict={fleet.gate_verdict}") == ["contract-summaries"]


def test_a_bad_filter_is_named_and_ignored(fleet: Release, signed_in: Client) -> None:
    response = signed_in.get("/?method=warp-drive&lane=NOT+A+LANE")
    assert response.status_code == 200
    body = response.content.decode()
    assert "method: Select a valid choice." in body and "lane: a lane is lowercase" in body
    assert slugs(signed_in, "?method=warp-drive") == ["contract-summaries", "doc-review", "support-chat"]


def test_no_match_says_how_to_see_everything(fleet: Release, signed_in: Client) -> None:
    body = signed_in.get("/?method=medusa").content.decode()
    assert "No route matches these filters" in body


def test_the_overview_reads_in_constant_queries(
    benchmarked: Release, proposer: Any, approver: Any, signed_in: Client
) -> None:
    # The session, the user, the user's role row (their route scope), the page count (the
    # overview is paginated), the one query for the page's rows with their live endpoints'
    # conformance (a prefetch, one query more, until the endpoints were read in the rows'
    # query on PostgreSQL), and the drifted live endpoints.
    with assert_num_queries(6):
        assert signed_in.get("/").status_code == 200
    go_live("support-chat", "support-chat-eagle3", proposer, approver)
    go_live("ops-agent", "agent-draft-model-vllm", proposer, approver)
    benchmarked_release(proposer=proposer, approver=approver, slug="contract-summaries-eu")
    make_version("doc-review", example("doc-review-ngram-tgi"))
    with assert_num_queries(6):
        assert signed_in.get("/").status_code == 200


def test_the_overview_is_paginated_and_its_links_keep_the_filters(
    fleet: Release, signed_in: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard_app.views import routes

    monkeypatch.setattr(routes, "OVERVIEW_PAGE_SIZE", 2)
    assert slugs(signed_in) == ["contract-summaries", "doc-review"]
    body = signed_in.get("/").content.decode()
    assert "page 1 of 2" in body and 'href="?page=2"' in body
    assert slugs(signed_in, "?page=2") == ["support-chat"]
    assert slugs(signed_in, "?page=99") == ["support-chat"]  # past the end: the last page
    monkeypatch.setattr(routes, "OVERVIEW_PAGE_SIZE", 1)
    filtered = signed_in.get("/?pending=no").content.decode()
    assert "page 1 of 2" in filtered and 'href="?pending=no&amp;page=2"' in filtered
    assert slugs(signed_in, "?pending=no&page=2") == ["support-chat"]


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_since_words_are_what_the_date_filters_print(zone: str) -> None:
    from datetime import UTC, datetime

    from django.template import Context, Template
    from django.utils import timezone

    from dashboard_app.selectors.overview import since_words

    moment = datetime(2026, 3, 1, 23, 45, 6, 789, tzinfo=UTC)
    filters = Template("{{ d|date:'c' }}|{{ d|date:'Y-m-d H:i' }}|{{ d|date:'Y-m-d' }}")
    with timezone.override(zone):
        words = since_words(moment)
        assert words is not None
        assert "|".join([words["iso"], words["minute"], words["day"]]) == filters.render(
            Context({"d": moment})
        )
    assert since_words(None) is None


def test_the_filter_form_is_drawn_without_djangos_widget_templates(fleet: Release, signed_in: Client) -> None:
    response = signed_in.get("/?method=eagle3&lane=chat")
    names = {t.name for t in response.templates}
    assert not {n for n in names if n.startswith("django/forms/widgets/")}
    body = response.content.decode()
    assert '<option value="eagle3" selected>eagle3</option>' in body
    assert '<input type="text" name="lane" value="chat" list="known-lanes" maxlength="63"' in body
