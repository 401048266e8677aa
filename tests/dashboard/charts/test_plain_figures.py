"""Figures built as plain dicts (kernel.plotting.plain_figure) are exactly what Plotly's
graph_objs would make of them: validating one through `go.Figure` and `to_dict` changes
nothing, so the pages draw the same charts without paying for the validation per view."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import pytest

from dashboard_app.charts import (
    acceptance_by_level,
    acceptance_by_position,
    fleet_heatmap,
    latency_by_level,
    latency_distribution,
    memory_by_level,
    output_stability,
    release_figures,
    speedup_vs_load,
    tokens_per_chunk,
)
from dashboard_app.charts.live import acceptance_over_time
from kernel.plotting import plain_figure, to_dict

T0, T1, T2, T3 = (f"2026-01-01T00:0{i}:00+00:00" for i in range(4))

LIVE_CASES: dict[str, dict[str, Any]] = {
    "no samples": {"samples": [], "reference": None, "floor": None, "alerts": []},
    "only a reset": {"samples": [(T0, None, True)], "reference": 0.7, "floor": 0.5, "alerts": []},
    "resets, reference, floor and an alert": {
        "samples": [(T0, None, True), (T1, 0.65, False), (T2, 0.7, True), (T3, 0.5, False)],
        "reference": 0.72,
        "floor": 0.55,
        "alerts": [(T3, 0.5)],
    },
    "a floor without a reference": {
        "samples": [(T1, 0.65, False), (T2, 1.0, False)],
        "reference": None,
        "floor": 0.4,
        "alerts": [],
    },
}


def _validated(figure: dict[str, Any]) -> dict[str, Any]:
    return to_dict(go.Figure(figure))


@pytest.mark.parametrize("case", list(LIVE_CASES))
def test_the_live_chart_is_what_plotly_makes_of_it(case: str) -> None:
    figure = acceptance_over_time(name="prod", **LIVE_CASES[case])
    assert figure == _validated(figure)


def test_a_named_template_is_expanded_as_plotly_expands_it() -> None:
    figure = plain_figure([{"type": "bar", "x": [1], "y": [2]}], {"template": "none", "title": {"text": "t"}})
    assert isinstance(figure["layout"]["template"], dict)
    assert figure == _validated(figure)


def test_a_log_axis_gets_readable_ticks_as_to_dict_gives_them() -> None:
    figure = plain_figure(
        [{"type": "scatter", "x": [1, 4, 16, 64], "y": [1, 2, 3, 4]}],
        {"template": "none", "xaxis": {"type": "log"}},
    )
    assert figure["layout"]["xaxis"]["tickvals"]
    assert figure == _validated(figure)


def test_every_release_figure_is_what_plotly_makes_of_it(run: dict[str, Any]) -> None:
    figures = release_figures(
        baseline={"chat": run["baseline"]},
        candidate={"chat": run["candidate"]},
        gate=run["gate"],
        min_headroom_gib=4,
    )
    assert len(figures) == 8
    for f in figures:
        assert f["figure"] == _validated(f["figure"]), f["id"]


def test_the_no_data_and_partial_branches_are_what_plotly_makes_of_them(run: dict[str, Any]) -> None:
    # Levels without acceptance, memory or chunks: the no-data notes and corner notes.
    bare = [
        {**a, "scalars": {}, "metrics": {k: v for k, v in a["metrics"].items() if k != "tokens_per_chunk"}}
        for a in run["candidate"]
    ]
    half = [run["candidate"][0], *bare[1:]]
    figures = [
        speedup_vs_load({"crossover": [], "checks": []}, lane="nope"),
        latency_distribution([], [], lane="chat"),
        latency_by_level([], [], lane="chat"),
        latency_distribution(
            run["baseline"][:1], run["candidate"][:1], lane="chat", metric="tokens_per_chunk"
        ),
        tokens_per_chunk(bare, bare, lane="chat"),
        acceptance_by_level(bare, lane="chat"),
        acceptance_by_level(half, lane="chat"),
        acceptance_by_position(bare, bare, lane="chat"),
        acceptance_by_position(run["baseline"], half, lane="chat"),
        memory_by_level(bare, bare, lane="chat"),
        output_stability({"checks": []}),
        output_stability(
            {"checks": [{"rule_id": "output_stability", "lane": "chat", "estimate": None, "required": 0.99}]}
        ),
    ]
    for index, figure in enumerate(figures):
        assert figure == _validated(figure), index


@pytest.mark.parametrize(
    "cells",
    [
        [],
        [
            {
                "lane": "chat",
                "route": "support-chat",
                "speedup": 1.84,
                "speedup_words": "1.84× [1.2, 2.1], n=12",
            },
            {"lane": "chat", "route": "doc-review", "speedup": 0.9, "verdict": "fail, release #3"},
            {"lane": "summarization", "route": "doc-review", "speedup": None},
            {"lane": "summarization", "route": "support-chat", "speedup": 0},
        ],
    ],
    ids=["no cells", "measured, unmeasured and not positive"],
)
def test_the_fleet_heatmap_is_what_plotly_makes_of_it(cells: list[dict[str, Any]]) -> None:
    figure = fleet_heatmap(cells)
    assert figure == _validated(figure)
