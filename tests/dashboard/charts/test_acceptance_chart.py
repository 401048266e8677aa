"""Acceptance by draft position: stored per level from the engine's per-position counts,
drawn per arm and level, and what the engine didn't count named instead of drawn as zero."""

from __future__ import annotations

import pytest

from benchmarks_app.aggregates import level_scalars
from dashboard_app.charts.acceptance import acceptance_by_position
from tests.dashboard.charts.test_figures import names, valid


def test_the_aggregate_stores_accepted_over_drafts_per_position(run):
    c1 = run["candidate"][0]["scalars"]["acceptance_by_position"]
    slow = 1 + 1 / 16
    assert c1 == pytest.approx([round(n / slow) / 100 for n in (90, 60, 30)], rel=1e-3)
    assert run["baseline"][0]["scalars"]["acceptance_by_position"] is None  # not reported
    assert run["candidate"][2]["scalars"]["acceptance_by_position"] is None  # c=16: no positions
    # Exact counts, rounded only after dividing: 123457 drafts would be 1.235e5 rounded first.
    exact = level_scalars({"speculation": {"drafts": 123457, "accepted_per_position": [123456]}})
    assert exact["acceptance_by_position"] == [1.0]
    bad_counts = [
        {"drafts": 0, "accepted_per_position": [1]},
        {"accepted_per_position": [1]},
        {"drafts": 4, "accepted_per_position": ["x"]},
        {"drafts": 4, "accepted_per_position": []},
    ]
    for bad in bad_counts:
        assert level_scalars({"speculation": bad})["acceptance_by_position"] is None


def test_a_line_per_level_falling_with_position_and_the_missing_level_named(run):
    fig = valid(acceptance_by_position(run["baseline"], run["candidate"], lane="chat"))
    assert names(fig) == ["candidate at 1", "candidate at 4"]
    first = fig["data"][0]
    assert first["x"] == [1, 2, 3] and first["y"] == sorted(first["y"], reverse=True)
    assert fig["data"][0]["line"]["color"] != fig["data"][1]["line"]["color"]  # levels differ in colour
    assert "candidate not reported at 16" in fig["layout"]["annotations"][0]["text"]
    assert fig["layout"]["yaxis"]["tickformat"] == ".0%"


def test_both_arms_drawn_when_both_speculate_and_told_apart_without_colour(run):
    fig = valid(acceptance_by_position(run["candidate"], run["candidate"], lane="chat"))
    base, cand = fig["data"][0], fig["data"][2]
    assert base["name"] == "baseline at 1" and cand["name"] == "candidate at 1"
    assert base["line"]["dash"] != cand["line"]["dash"]
    assert base["marker"]["symbol"] != cand["marker"]["symbol"]


def test_nothing_counted_per_position_says_so(run):
    fig = valid(acceptance_by_position(run["baseline"], run["baseline"], lane="chat"))
    assert fig["data"] == [] and "not reported" in fig["layout"]["annotations"][0]["text"]
