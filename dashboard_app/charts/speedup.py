"""Speedup vs. load level with its confidence band and the crossover, from the gate result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from dashboard_app.charts.style import OKABE_ITO, TIMES, layout, no_data, to_dict

_METRIC_NAMES = {"ttft": "TTFT", "tpot": "TPOT", "itl_chunk": "Inter-chunk latency", "e2e": "E2E latency"}


def _metric_label(metric: str) -> str:
    base, _, suffix = metric.rpartition("_")
    return f"{_METRIC_NAMES.get(base, metric)} {suffix}" if base in _METRIC_NAMES else metric


def speedup_vs_load(gate_result: Mapping[str, Any], *, lane: str) -> dict[str, Any]:
    """The primary metric's improvement ratio per level (>= 1: the candidate is faster), the
    band of its interval, 1x (no change), the first `improve` rule's bar, and the crossover.
    Takes `GateResult.as_dict()`."""
    entry = next((c for c in gate_result.get("crossover", []) if c["lane"] == lane), None)
    metric = entry["metric"] if entry else "tpot_p50"
    label = _metric_label(metric)
    kind = entry["level_kind"] if entry else "concurrency"
    x_title = "request rate (req/s)" if kind == "rate" else "concurrency (concurrent requests)"
    fig = go.Figure(
        layout=layout(f"{label} speedup vs. load, lane {lane}", x_title, f"speedup ({TIMES} baseline)")
    )
    points = [p for p in (entry or {}).get("levels", []) if p.get("estimate") is not None]
    if not points:
        no_data(fig, "No level could be compared.")
        return to_dict(fig)
    xs = [p["level"] for p in points]
    conf = f"{100 * entry['confidence']:.3g}%" if entry else ""
    # The band: the upper edge first (invisible), then the lower edge filled up to it.
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[p["ci_high"] for p in points],
            mode="lines",
            line={"width": 0},
            showlegend=False,
            hoverinfo="skip",
            name="interval upper",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[p["ci_low"] for p in points],
            mode="lines",
            line={"width": 0},
            fill="tonexty",
            fillcolor="rgba(213, 94, 0, 0.18)",
            name=f"{conf} interval",
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[p["estimate"] for p in points],
            customdata=[[p["ci_low"], p["ci_high"]] for p in points],
            mode="lines+markers",
            name="speedup",
            line={"color": OKABE_ITO["vermillion"], "width": 2},
            marker={"symbol": "diamond", "size": 9},
            hovertemplate="%{x}: %{y:.2f}"
            + TIMES
            + " [%{customdata[0]:.2f}, %{customdata[1]:.2f}]<extra></extra>",
        )
    )
    fig.add_hline(
        y=1,
        line={"color": OKABE_ITO["black"], "dash": "dot", "width": 1},
        annotation_text=f"1{TIMES} (no change)",
        annotation_position="bottom right",
    )
    bar = next(
        (
            c["required"]
            for c in gate_result.get("checks", [])
            if c["kind"] == "improve" and c["metric"] == metric
        ),
        None,
    )
    if bar is not None:
        fig.add_hline(
            y=bar,
            line={"color": OKABE_ITO["green"], "dash": "dash", "width": 1},
            annotation_text=f"required {bar:g}{TIMES}",
            annotation_position="top right",
        )
    if entry and entry.get("level") is not None:
        fig.add_vline(
            x=entry["level"],
            line={"color": OKABE_ITO["black"], "dash": "dash", "width": 1.5},
            annotation_text=f"crossover at {entry['level']:g}",
            annotation_position="top left",
        )
    fig.update_xaxes(type="log", tickvals=xs, ticktext=[f"{x:g}" for x in xs])
    return to_dict(fig)
