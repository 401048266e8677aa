"""Speedup vs. load level with the intervals that decided the verdict drawn as error bars,
the required bar and the crossover, from the gate result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dashboard_app.charts.style import TIMES, layout, log_level_axis_props
from kernel.plotting import OKABE_ITO, merge, no_data_note, plain_figure, reference_line

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
    # Plain dicts, not graph_objs (issue 26, item 3): what Plotly would make of them.
    figure_layout = layout(f"{label} speedup vs. load, lane {lane}", x_title, f"speedup ({TIMES} baseline)")
    points = [p for p in (entry or {}).get("levels", []) if p.get("estimate") is not None]
    if not points:
        figure_layout["annotations"] = [no_data_note("No level could be compared.")]
        return plain_figure([], figure_layout)
    xs = [p["level"] for p in points]
    # The interval drawn is the one that decided the verdict: the improve rule's check at
    # that level (its Holm-adjusted bound) where there is one, else the crossover's.
    decided = {
        c["level"]: c
        for c in gate_result.get("checks", [])
        if c.get("kind") == "improve"
        and c.get("metric") == metric
        and c.get("lane") == lane
        and c.get("ci_low") is not None
    }
    lows = [decided.get(p["level"], p)["ci_low"] for p in points]
    highs = [decided.get(p["level"], p)["ci_high"] for p in points]
    ys = [p["estimate"] for p in points]
    trace = {
        "type": "scatter",
        "x": xs,
        "y": ys,
        "customdata": [[lo, hi] for lo, hi in zip(lows, highs, strict=True)],
        # One level is a dot with its whisker; several are joined.
        "mode": "lines+markers" if len(points) > 1 else "markers",
        "name": "speedup with its interval",
        "line": {"color": OKABE_ITO["vermillion"], "width": 2},
        "marker": {"symbol": "diamond", "size": 9},
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": [max(0.0, h - y) if h is not None else 0 for h, y in zip(highs, ys, strict=True)],
            "arrayminus": [max(0.0, y - lo) if lo is not None else 0 for lo, y in zip(lows, ys, strict=True)],
            "color": OKABE_ITO["vermillion"],
            "thickness": 2,
            "width": 8,
        },
        "hovertemplate": "%{x}: %{y:.2f}"
        + TIMES
        + " [%{customdata[0]:.2f}, %{customdata[1]:.2f}]<extra></extra>",
    }
    lines = [
        reference_line(
            "h",
            1,
            line={"color": OKABE_ITO["black"], "dash": "dot", "width": 1},
            text=f"1{TIMES} (no change)",
            position="bottom right",
        )
    ]
    bar = next(
        (
            c["required"]
            for c in gate_result.get("checks", [])
            if c["kind"] == "improve" and c["metric"] == metric
        ),
        None,
    )
    if bar is not None:
        lines.append(
            reference_line(
                "h",
                bar,
                line={"color": OKABE_ITO["green"], "dash": "dash", "width": 1},
                text=f"required {bar:g}{TIMES}",
                position="top right",
            )
        )
    if entry and entry.get("level") is not None:
        lines.append(
            reference_line(
                "v",
                entry["level"],
                line={"color": OKABE_ITO["black"], "dash": "dash", "width": 1.5},
                text=f"crossover at {entry['level']:g}",
                position="top left",
            )
        )
    figure_layout["shapes"] = [shape for shape, _ in lines]
    figure_layout["annotations"] = [annotation for _, annotation in lines]
    merge(figure_layout["xaxis"], log_level_axis_props(xs))
    return plain_figure([trace], figure_layout)
