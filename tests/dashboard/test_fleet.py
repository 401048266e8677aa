"""The fleet view: a lane × route heatmap of measured speedups with a table fallback."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from releases_app.models import Release
from releases_app.services import release_approve, release_rollback
from tests.support.benchmarked import benchmarked_release
from tests.support.factories import example, make_version
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db


def heatmap(body: str) -> dict[str, Any]:
    match = re.search(
        r'<script type="application/json" data-plotly="fleet-heatmap">(.*?)</script>', body, re.S
    )
    assert match is not None
    return dict(json.loads(match.group(1)))


def test_with_nothing_measured_it_says_what_to_do(signed_in: Client) -> None:
    make_version("support-chat", example("support-chat-eagle3"))
    body = signed_in.get("/fleet/").content.decode()
    assert "No route has a measured speedup yet" in body and "data-plotly" not in body


def test_it_maps_each_measured_lane_of_what_each_route_runs_now(
    benchmarked: Release, second_approver: Any, signed_in: Client
) -> None:
    release_approve(release=benchmarked, actor=second_approver, reason="gate passed")
    body = signed_in.get("/fleet/").content.decode()
    trace = heatmap(body)["data"][0]
    assert trace["type"] == "heatmap"
    assert trace["x"] == ["contract-summaries"] and trace["y"] == ["extraction", "summarization"]
    speedups = {s["lane"]: s["estimate"] for s in benchmarked.gate_result["speedup"]}
    for lane, row in zip(trace["y"], trace["text"], strict=True):
        assert row[0].startswith(f"{speedups[lane]:.2f}×") and f"release #{benchmarked.pk}" in row[0]
    table = body[body.index('class="fleet-table"') :]
    # With the interval and the requests per arm it rests on, never a bare ratio.
    s = next(s for s in benchmarked.gate_result["speedup"] if s["lane"] == "extraction")
    shown = f"{s['estimate']:.2f}× [{s['ci_low']:.2f}, {s['ci_high']:.2f}], n={s['n_candidate']}"
    assert s["n_baseline"] == s["n_candidate"] and f"<strong>{shown}</strong>" in table
    assert f'href="/releases/{benchmarked.pk}/">release #{benchmarked.pk}</a>, active since' in table


def test_a_pending_candidates_speedup_is_not_the_routes(benchmarked: Release, signed_in: Client) -> None:
    body = signed_in.get("/fleet/").content.decode()
    assert "data-plotly" not in body  # nothing measured runs now
    history = body[body.index("Other measurements") :]
    assert '<span class="badge badge-awaiting_review">awaiting review</span>' in history


def test_after_a_rollback_no_page_shows_the_rolled_back_speedup_as_current(
    benchmarked: Release, second_approver: Any, signed_in: Client
) -> None:
    release_approve(release=benchmarked, actor=second_approver, reason="gate passed")
    release_rollback(release=benchmarked, actor=second_approver, reason="drifted in production")
    speedups = [f"{s['estimate']:.2f}×" for s in benchmarked.gate_result["speedup"]]

    fleet = signed_in.get("/fleet/").content.decode()
    assert "data-plotly" not in fleet and 'class="fleet-table"' not in fleet
    history = fleet[fleet.index("Other measurements") :]
    assert '<span class="badge badge-rolled_back">rolled back</span>' in history
    assert all(s in history for s in speedups)
    assert all(s not in fleet[: fleet.index("Other measurements")] for s in speedups)

    overview = signed_in.get("/").content.decode()
    row = overview[overview.index('href="/routes/contract-summaries/"') :]
    assert "not measured for v1" in row
    assert f"<strong>{speedups[0]}</strong>" not in row
    assert "history: " in row and "rolled back" in row

    card = signed_in.get("/routes/contract-summaries/card/").content.decode()
    assert all(s not in card.split("History")[0] for s in speedups)
    assert "No measured speedup for version 1" in card


def test_the_fleet_reads_in_constant_queries(
    benchmarked: Release, proposer: Any, approver: Any, signed_in: Client
) -> None:
    # The session, the user, the user's role row (their route scope), the routes' count (the
    # pages), the page's rows, the drifted endpoints.
    with assert_num_queries(6):
        assert signed_in.get("/fleet/").status_code == 200
    benchmarked_release(proposer=proposer, approver=approver, slug="contract-summaries-eu")
    benchmarked_release(proposer=proposer, approver=approver, slug="contract-summaries-us")
    with assert_num_queries(6):
        assert signed_in.get("/fleet/").status_code == 200


def test_the_grid_is_paginated_by_route(
    benchmarked: Release,
    proposer: Any,
    approver: Any,
    second_approver: Any,
    signed_in: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dashboard_app.views import fleet

    release_approve(release=benchmarked, actor=second_approver, reason="gate passed")
    eu = benchmarked_release(proposer=proposer, approver=approver, slug="contract-summaries-eu")
    release_approve(release=eu, actor=second_approver, reason="gate passed")
    make_version("support-chat", example("support-chat-eagle3"))  # never measured
    monkeypatch.setattr(fleet, "FLEET_PAGE_SIZE", 1)

    first = signed_in.get("/fleet/").content.decode()
    assert heatmap(first)["data"][0]["x"] == ["contract-summaries"]
    assert "page 1 of 3 (1\u20131 of 3 routes)" in first and 'href="?page=2" rel="next"' in first
    assert 'rel="prev"' not in first
    second = signed_in.get("/fleet/?page=2").content.decode()
    assert heatmap(second)["data"][0]["x"] == ["contract-summaries-eu"]
    assert 'href="?page=1" rel="prev"' in second and 'href="?page=3" rel="next"' in second
    # A page of routes none of which is measured says so of this page, not of the fleet.
    last = signed_in.get("/fleet/?page=3").content.decode()
    assert "data-plotly" not in last
    assert "No route on this page has a measured speedup for what it runs now: support-chat." in last
    assert "No route has a measured speedup yet" not in last
    past_the_end = signed_in.get("/fleet/?page=99").content.decode()  # the last page
    assert "page 3 of 3" in past_the_end and "now: support-chat." in past_the_end
    assert heatmap(signed_in.get("/fleet/?page=nope").content.decode())["data"][0]["x"] == [
        "contract-summaries"
    ]
