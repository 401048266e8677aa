"""Latency distributions (ECDF from the stored quantile sketches) and latency per level."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks_app.aggregates import QUANTILE_PROBS, sketch_quantile
from dashboard_app.charts.style import (
    METRIC_LABELS,
    by_level,
    layout,
    level_axis_title,
    level_text,
    line_style,
    log_level_axis_props,
)
from kernel.plotting import axis_ref, merge, no_data_note, plain_figure, subplot_grid
from worker.spec import ARMS

Aggregates = Sequence[Mapping[str, Any]]


def _ecdf(metric_sketch: Mapping[str, Any]) -> tuple[list[float], list[float]]:
    xs = [metric_sketch["min"], *metric_sketch["quantiles"], metric_sketch["max"]]
    ys = [0.0, *QUANTILE_PROBS, 1.0]
    return xs, ys


def latency_distribution(
    baseline: Aggregates, candidate: Aggregates, *, lane: str, metric: str = "tpot_ms", max_panels: int = 6
) -> dict[str, Any]:
    """One ECDF panel per load level measured in both arms, one trace per arm
    ("baseline", "candidate"; the legend shows each once). Log x axis: latency tails."""
    label, unit = METRIC_LABELS[metric]
    base, cand = by_level(baseline), by_level(candidate)
    levels = sorted(base.keys() & cand.keys(), key=lambda k: (k[0], k[1]))[:max_panels]
    if not levels:
        empty = layout(f"{label} distribution, lane {lane}", f"{label} ({unit})", "fraction ≤ x")
        empty["annotations"] = [no_data_note("No load level was measured for both baseline and candidate.")]
        return plain_figure([], empty)
    cols = min(len(levels), 3)
    rows = math.ceil(len(levels) / cols)
    titles = [
        f"{'rate' if kind == 'rate' else 'concurrency'} {level_text(base[(kind, lv)])}" for kind, lv in levels
    ]
    # Plain dicts on make_subplots' grid (kernel.plotting.subplot_grid), not graph_objs: the
    # figures of a release page not viewed yet were ~85% of its CPU (issue 26, item 3).
    grid = subplot_grid(rows, cols, titles, shared_yaxes=True)
    fraction = (
        "fraction of chunks ≤ x"
        if metric in ("itl_chunk_ms", "tokens_per_chunk")
        else "fraction of requests ≤ x"
    )
    traces: list[dict[str, Any]] = []
    for i, key in enumerate(levels):
        row, col = divmod(i, cols)
        xaxis, yaxis = axis_ref(row + 1, col + 1, cols)
        for arm, source in zip(ARMS, (base, cand), strict=True):
            sk = source[key]["metrics"].get(metric, {})
            if not sk.get("count"):
                continue
            xs, ys = _ecdf(sk)
            traces.append(
                {
                    "type": "scatter",
                    "x": xs,
                    "y": ys,
                    "name": arm,
                    "legendgroup": arm,
                    "showlegend": i == 0,
                    "mode": "lines",
                    "line": {**line_style(arm)["line"], "shape": "hv"},
                    "hovertemplate": f"{arm}: %{{y:.0%}} ≤ %{{x:.4g}} {unit}<extra></extra>",
                    "xaxis": xaxis,
                    "yaxis": yaxis,
                }
            )
    height = 300 * rows + 120
    merge(
        grid,
        layout(
            f"{label} distribution, lane {lane}",
            "",
            "",
            height=height,
            # Above the panel titles, which sit just over each panel.
            legend={
                "orientation": "h",
                "x": 1,
                "xanchor": "right",
                "y": 1 + 60 / height,
                "yanchor": "bottom",
            },
            margin={"l": 64, "r": 24, "t": 110, "b": 64},
        ),
    )
    log_axis = metric != "tokens_per_chunk"
    for name, axis in grid.items():
        if name.startswith("xaxis"):
            merge(axis, {"title": {"text": f"{label} ({unit})"}, "type": "log" if log_axis else "linear"})
            axis["gridcolor"] = "#e5e5e5"
        elif name.startswith("yaxis"):
            merge(axis, {"range": [0, 1.02], "gridcolor": "#e5e5e5"})
    for row in range(1, rows + 1):  # the first column's y axes carry the title
        merge(grid[f"yaxis{axis_ref(row, 1, cols)[1][1:]}"], {"title": {"text": fraction}})
    return plain_figure(traces, grid)


def latency_by_level(
    baseline: Aggregates, candidate: Aggregates, *, lane: str, metric: str = "ttft_ms"
) -> dict[str, Any]:
    """Median per load level, one trace per arm, whiskers from p5 to p95."""
    label, unit = METRIC_LABELS[metric]
    title = f"{label} by load level, lane {lane} (median; whiskers p5-p95)"
    figure_layout = layout(title, level_axis_title([*baseline, *candidate]), f"{label} ({unit})")
    traces: list[dict[str, Any]] = []
    levels: set[float] = set()
    # The arms sit a little either side of their level so their whiskers don't overlap.
    for arm, aggregates, nudge in zip(ARMS, (baseline, candidate), (0.96, 1.04), strict=True):
        points = []
        for key, agg in sorted(by_level(aggregates).items()):
            sk = agg["metrics"].get(metric, {})
            p5, p50, p95 = (sketch_quantile(sk, p) for p in (0.05, 0.5, 0.95))
            if p50 is not None and p5 is not None and p95 is not None:
                points.append((key[1], p5, p50, p95))
        if not points:
            continue
        levels.update(p[0] for p in points)
        traces.append(
            {
                "type": "scatter",
                "x": [p[0] * nudge for p in points],
                "y": [p[2] for p in points],
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": [p[3] - p[2] for p in points],
                    "arrayminus": [p[2] - p[1] for p in points],
                    "color": line_style(arm)["line"]["color"],
                },
                "customdata": [[p[1], p[3], p[0]] for p in points],
                "name": arm,
                "mode": "lines+markers",
                "hovertemplate": (
                    f"{arm} at %{{customdata[2]}}: median %{{y:.4g}} {unit} (p5 %{{customdata[0]:.4g}}, "
                    f"p95 %{{customdata[1]:.4g}})<extra></extra>"
                ),
                **line_style(arm),
            }
        )
    merge(figure_layout["xaxis"], log_level_axis_props(sorted(levels)))
    if not traces:
        figure_layout["annotations"] = [no_data_note(f"No {label} was measured.")]
    return plain_figure(traces, figure_layout)


def ttft_by_level(baseline: Aggregates, candidate: Aggregates, *, lane: str) -> dict[str, Any]:
    return latency_by_level(baseline, candidate, lane=lane, metric="ttft_ms")
