"""The advice page's figures from stored recommendations: the pure advisor driven on the
known truth (tests/support/advice_truth.py), serialised as AdviceRun stores it."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from advice_app.charts import advice_figures, front_points, pareto_front, speedup_curves
from advice_app.serialize import recommendation_to_dict
from benchmarks.advisor import run_lane
from kernel.plotting import figure_json


@cache
def stored(lane: str, seed: int = 11) -> dict[str, Any]:
    rec, adv = run_lane(lane, seed, n_boot=500)
    # Through JSON text, as the database column holds it.
    return json.loads(json.dumps(recommendation_to_dict(rec, adv), allow_nan=False))


def _traces(fig: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in fig["data"]}


def test_the_curves_draw_every_candidate_with_its_interval_and_the_one_x_line() -> None:
    rec = stored("clear")
    fig = speedup_curves(rec)
    traces = _traces(fig)
    chosen = rec["chosen"]["name"]
    assert f"{chosen} (chosen)" in traces
    assert len(traces) == len(rec["curves"])
    for name, points in rec["curves"].items():
        trace = next(t for label, t in traces.items() if label.split(" ")[0] == name)
        measured = [p for p in points if p["speedup"] is not None]
        assert trace["y"] == [p["speedup"] for p in measured]
        # The error bars are the stored interval, around the point.
        assert trace["error_y"]["array"] == pytest.approx([p["ci_high"] - p["speedup"] for p in measured])
        assert trace["error_y"]["arrayminus"] == pytest.approx([p["speedup"] - p["ci_low"] for p in measured])
        # Hover shows the level measured, not the shifted position the whisker is drawn at.
        assert [c[0] for c in trace["customdata"]] == [p["level"] for p in measured]
        assert [c[3] for c in trace["customdata"]] == [p["n"] for p in measured]
    assert any(s["y0"] == 1 and s["y1"] == 1 for s in fig["layout"]["shapes"])
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert fig["layout"]["xaxis"]["tickvals"] == rec["levels"]


def test_dropped_candidates_are_named_so_in_the_legend() -> None:
    rec = stored("tie")
    dropped = {d["candidate"] for d in rec["dropped"]}
    assert dropped  # ngram-2 is clearly slower
    names = set(_traces(speedup_curves(rec)))
    assert {f"{d} (dropped)" for d in dropped} <= names


def test_the_crossover_of_the_chosen_candidate_is_marked() -> None:
    rec = stored("crossover")
    assert rec["crossover"]["level"] is not None
    fig = speedup_curves(rec)
    lines = [s for s in fig["layout"]["shapes"] if s["x0"] == s["x1"] == rec["crossover"]["level"]]
    assert len(lines) == 1
    assert any("crossover" in a["text"] for a in fig["layout"]["annotations"])


def test_the_front_values_are_the_advisors_own() -> None:
    rec = stored("clear")
    points = {p["name"]: p for p in front_points(rec)}
    # The chosen candidate's value on the front is the recommendation's value.
    assert points[rec["chosen"]["name"]]["value"] == pytest.approx(rec["value"])
    assert {p["cost_kind"] for p in points.values()} == {"assets"}  # no candidate states memory


def test_a_dominated_candidate_is_off_the_front() -> None:
    rec = stored("clear")
    points = front_points(rec)
    front = {p["name"] for p in points if p["front"]}
    for p in points:
        beaten = any(
            q["value"] >= p["value"]
            and q["cost"] <= p["cost"]
            and (q["value"], q["cost"]) != (p["value"], p["cost"])
            for q in points
        )
        assert (p["name"] in front) is not beaten
    # The best zero-asset candidate is always on the front: nothing costs less.
    cheapest = max((p for p in points if p["cost"] == 0), key=lambda p: p["value"])
    assert cheapest["front"]
    traces = _traces(pareto_front(rec))
    marked = traces["on the front (nothing is faster for less)"]
    assert sorted(t.removesuffix(" (chosen)") for t in marked["text"]) == sorted(front)


def test_memory_is_the_cost_when_every_candidate_states_it() -> None:
    rec = json.loads(json.dumps(stored("clear")))
    for c in rec["candidates"]:
        c["memory_gib"] = 0.0 if c["assets"] == 0 else 1.5
    points = front_points(rec)
    assert {p["cost_kind"] for p in points} == {"memory"}
    assert pareto_front(rec)["layout"]["xaxis"]["title"]["text"] == "memory of the assets (GiB)"


def test_speculation_off_without_curves_says_there_is_no_data() -> None:
    rec, _ = run_lane("off", 3, n_boot=500)
    bare = recommendation_to_dict(rec)  # no advisor: no curves stored
    for fig in (speedup_curves(bare), pareto_front(bare)):
        assert fig["data"] == []
        assert "No candidate" in fig["layout"]["annotations"][0]["text"]


def test_every_lane_gets_both_figures_with_safe_ids() -> None:
    recs = {"chat <x>": stored("clear"), "agent": stored("tie")}
    figures = advice_figures(recs)
    assert [(f["lane"], f["id"]) for f in figures] == [
        ("agent", "advice-lane0-curves"),
        ("agent", "advice-lane0-front"),
        ("chat <x>", "advice-lane1-curves"),
        ("chat <x>", "advice-lane1-front"),
    ]
    for f in figures:
        text = figure_json(f["figure"])
        assert "<" not in text and json.loads(text) == f["figure"]
