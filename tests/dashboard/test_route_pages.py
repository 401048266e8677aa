"""The route page (active contract, checklist, releases, history, diff picker), the
version page's field anchors, and the route card as a printable page and as Markdown."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from releases_app.models import Release
from releases_app.services import release_approve, release_create
from tests.support.benchmarked import candidate_document, finish_runs
from tests.support.factories import example, make_version, variant
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db


@pytest.fixture
def live(benchmarked: Release, second_approver: Any) -> Release:
    """contract-summaries with its n-gram version (v2) active after a real benchmark."""
    release_approve(release=benchmarked, actor=second_approver, reason="gate passed")
    return benchmarked


def test_the_route_page_shows_the_active_contract_and_the_checklist(live: Release, signed_in: Client) -> None:
    body = signed_in.get("/routes/contract-summaries/").content.decode()
    card = body[body.index('id="active-contract"') : body.index('id="checklist"')]
    assert "<code>ngram</code> · 5 speculative tokens" in card
    assert "sha256:" in card and "Route card (print)" in card and "Download card (Markdown)" in card
    assert body.count('<li class="check check-') == 6
    assert "Measured on the real workload lanes" in body
    assert f'href="/releases/{live.pk}/">#{live.pk}</a>' in body  # the releases table
    assert 'name="from"' in body and 'name="to"' in body


def test_the_version_page_has_an_anchor_per_contract_section(live: Release, signed_in: Client) -> None:
    body = signed_in.get("/routes/contract-summaries/versions/2/").content.decode()
    for section in ("target", "speculation", "assets", "compatibility", "lanes", "measurement", "rollback"):
        assert f'id="field-{section}"' in body
    assert "prompt_lookup_max" in body


def test_the_route_card_prints_the_checklist(live: Release, signed_in: Client) -> None:
    body = signed_in.get("/routes/contract-summaries/card/").content.decode()
    assert "Route card: contract-summaries" in body
    assert body.count('<li class="check check-') == 6
    assert 'class="no-print"' in body  # navigation that the print stylesheet hides


def test_the_markdown_card_downloads_with_absolute_evidence_links(live: Release, signed_in: Client) -> None:
    response = signed_in.get("/routes/contract-summaries/card.md")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="contract-summaries-route-card.md"'
    text = response.content.decode()
    assert text.startswith("# Route card: contract-summaries\n")
    assert text.count("\n### ") == 6
    assert "**measured.** Measured on the real workload lanes" in text
    assert (
        "- v2 speculation: <http://testserver/routes/contract-summaries/versions/2/#field-speculation>"
        in text
    )
    assert f"- release \\#{live.pk}: <http://testserver/releases/{live.pk}/>" in text


def test_markup_in_a_description_stays_text_in_the_markdown(
    proposer: Any, approver: Any, signed_in: Client
) -> None:
    make_version("contract-summaries", variant(example(), description="**Bold** [click](javascript:x) <b>"))
    first = release_create(route="contract-summaries", candidate_version=1, actor=proposer)
    release_approve(release=first, actor=approver, reason="first version")
    text = signed_in.get("/routes/contract-summaries/card.md").content.decode()
    assert "\\*\\*Bold\\*\\* \\[click\\](javascript:x) \\<b\\>" in text


def test_an_unknown_route_has_no_card(signed_in: Client) -> None:
    assert signed_in.get("/routes/nope/card/").status_code == 404
    assert signed_in.get("/routes/nope/card.md").status_code == 404


def test_the_route_page_reads_in_constant_queries(
    live: Release, proposer: Any, approver: Any, signed_in: Client
) -> None:
    # The route page's 9 include one for live endpoints (the page's list, which its checklist's
    # Q1 and Q6 take instead of reading them again); the card reads its speedup facts in one
    # query more (the overview row of the route, with its live endpoints' conformance: one more
    # on SQLite, a prefetch), and its checklist's Q1 the live endpoints in one more.
    # The route page reads the user's role once (whether to show the authoring forms,
    # dashboard/_route_authoring.html); the card reads that row too, for the user's route scope
    # (UserRole.route_slugs: a scoped user gets 404 on another route's card). The route page
    # reads its latest finished advice in one query more, and the newest acceptance alert
    # since only when there is one, none here (advice_app.selectors.advice_staleness).
    pinned = {"/routes/contract-summaries/": 11, "/routes/contract-summaries/card/": 9}
    for url, queries in pinned.items():
        with assert_num_queries(queries):
            assert signed_in.get(url).status_code == 200
    # More history: versions, a second benchmarked release (more runs), activated.
    for n in range(3):
        make_version(
            "contract-summaries",
            variant(candidate_document(), **{"speculation.num_speculative_tokens": 2 + n}),
        )
    with_more = release_create(route="contract-summaries", candidate_version=5, actor=proposer)
    finish_runs(with_more)
    for url, queries in pinned.items():
        with assert_num_queries(queries):
            assert signed_in.get(url).status_code == 200
