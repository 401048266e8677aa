"""Latency distributions (ECDF from the stored quantile sketches) and latency per level."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from benchmarks_app.aggregates import QUANTILE_PROBS, sketch_quantile
from dashboard_app.charts.style import (
    METRIC_LABELS,
    by_level,
    layout,
    level_axis_title,
    level_text,
    line_style,
    log_level_axis,
)
from kernel.plotting import no_data, to_dict
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
        fig = go.Figure(
            layout=layout(f"{label} distribution, lane {lane}", f"{label} ({unit})", "fraction ≤ x")
        )
        no_data(fig, "No load level was measured for both baseline and candidate.")
        return to_dict(fig)
    cols = min(len(levels), 3)
    rows = math.ceil(len(levels) / cols)
    titles = [
        f"{'rate' if kind == 'rate' else 'concurrency'} {level_text(base[(kind, lv)])}" for kind, lv in levels
    ]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, shared_yaxes=True)
    fraction = (
        "fraction of chunks ≤ x"
        if metric in ("itl_chunk_ms", "tokens_per_chunk")
        else "fraction of requests ≤ x"
    )
    for i, key in enumerate(levels):
        row, col = divmod(i, cols)
        for arm, source in zip(ARMS, (base, cand), strict=True):
            sk = source[key]["metrics"].get(metric, {})
            if not sk.get("count"):
                continue
            xs, ys = _ecdf(sk)
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    name=arm,
                    legendgroup=arm,
                    showlegend=i == 0,
                    mode="lines",
                    line_shape="hv",
                    hovertemplate=f"{arm}: %{{y:.0%}} ≤ %{{x:.4g}} {unit}<extra></extra>",
                    **{"line": line_style(arm)["line"]},
                ),
                row=row + 1,
                col=col + 1,
            )
    height = 300 * rows + 120
    fig.update_layout(
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
        )
    )
    log_axis = metric != "tokens_per_chunk"
    fig.update_xaxes(
        title_text=f"{label} ({unit})", type="log" if log_axis else "linear", gridcolor="#e5e5e5"
    )
    fig.update_yaxes(range=[0, 1.02], gridcolor="#e5e5e5")
    fig.update_yaxes(title_text=fraction, col=1)
    return to_dict(fig)


def latency_by_level(
    baseline: Aggregates, candidate: Aggregates, *, lane: str, metric: str = "ttft_ms"
) -> dict[str, Any]:
    """Median per load level, one trace per arm, whiskers from p5 to p95."""
    label, unit = METRIC_LABELS[metric]
    title = f"{label} by load level, lane {lane} (median; whiskers p5-p95)"
    fig = go.Figure(layout=layout(title, level_axis_title([*baseline, *candidate]), f"{label} ({unit})"))
    drawn = False
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
        drawn = True
        levels.update(p[0] for p in points)
        fig.add_trace(
            go.Scatter(
                x=[p[0] * nudge for p in points],
                y=[p[2] for p in points],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [p[3] - p[2] for p in points],
                    "arrayminus": [p[2] - p[1] for p in points],
                    "color": line_style(arm)["line"]["color"],
                },
                customdata=[[p[1], p[3], p[0]] for p in points],
                name=arm,
                mode="lines+markers",
                hovertemplate=(
                    f"{arm} at %{{customdata[2]}}: median %{{y:.4g}} {unit} (p5 %{{customdata[0]:.4g}}, "
                    f"p95 %{{customdata[1]:.4g}})<extra></extra>"
                ),
                **line_style(arm),
            )
        )
    log_level_axis(fig, sorted(levels))
    if not drawn:
        no_data(fig, f"No {label} was measured.")
    return to_dict(fig)


def ttft_by_level(baseline: Aggregates, candidate: Aggregates, *, lane: str) -> dict[str, Any]:
    return latency_by_level(baseline, candidate, lane=lane, metric="ttft_ms")
