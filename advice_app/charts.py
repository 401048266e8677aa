"""The advice page's figures, from a lane's stored recommendation dict
(serialize.recommendation_to_dict with the advisor: `curves`, `candidates`, `levels`,
`metric`), on the project's chart base (kernel.plotting), the way the release page's are
built: pure Plotly, no Django.

- Speedup vs. load: per candidate, the primary metric's speedup at each level with its
  interval (the gate's crossover points), the 1x line and the chosen one's crossover.
- The Pareto front: each candidate's value (the advisor's geometric mean speedup over the
  levels, strategy/values.py) against what it costs (memory where every candidate states
  it, else assets); the candidates no other beats on both are marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from advice_app.strategy.values import point_value
from kernel.plotting import OKABE_ITO, TIMES, layout, log_level_axis, no_data, to_dict

Json = Mapping[str, Any]

# Each candidate differs by colour, dash and marker, so neither colour vision nor a
# greyscale print is needed to tell the lines apart (as the release page's two arms).
_COLOURS = ("vermillion", "blue", "green", "orange", "purple", "sky_blue", "black", "yellow")
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_SYMBOLS = ("diamond", "circle", "square", "triangle-up", "x", "cross", "star", "triangle-down")
_METRIC_NAMES = {"ttft": "TTFT", "tpot": "TPOT", "itl_chunk": "Inter-chunk latency", "e2e": "E2E latency"}


def _style(index: int) -> dict[str, Any]:
    colour = OKABE_ITO[_COLOURS[index % len(_COLOURS)]]
    return {
        "line": {"color": colour, "dash": _DASHES[index % len(_DASHES)], "width": 2},
        "marker": {"symbol": _SYMBOLS[index % len(_SYMBOLS)], "size": 9, "color": colour},
    }


def _metric_label(metric: str) -> str:
    base, _, suffix = metric.rpartition("_")
    return f"{_METRIC_NAMES[base]} {suffix}" if base in _METRIC_NAMES else metric


def _chosen_name(rec: Json) -> str | None:
    chosen = rec.get("chosen")
    return chosen.get("name") if isinstance(chosen, Mapping) else None


def _dropped(rec: Json) -> set[str]:
    return {d["candidate"] for d in rec.get("dropped", [])}


def speedup_curves(rec: Json) -> dict[str, Any]:
    """Speedup vs. load per candidate with its interval as error bars (>= 1: faster than
    speculation off), 1x, and the chosen candidate's crossover."""
    lane, metric = rec.get("lane", "?"), rec.get("metric", "tpot_p50")
    fig = go.Figure(
        layout=layout(
            f"{_metric_label(metric)} speedup vs. load per candidate, lane {lane}",
            "concurrency (concurrent requests)",
            f"speedup ({TIMES} speculation off)",
        )
    )
    curves: Mapping[str, Sequence[Json]] = rec.get("curves") or {}
    chosen, dropped = _chosen_name(rec), _dropped(rec)
    names = list(curves)
    drawn: list[float] = []
    for index, name in enumerate(names):
        points = [p for p in curves[name] if p.get("speedup") is not None]
        if not points:
            continue
        # Side by side at each level (a few per cent apart on the log axis), so the
        # whiskers of candidates at the same level don't hide each other.
        shift = 1 + 0.035 * (index - (len(names) - 1) / 2)
        xs = [p["level"] * shift for p in points]
        ys = [p["speedup"] for p in points]
        lows = [p["ci_low"] if p.get("ci_low") is not None else y for p, y in zip(points, ys, strict=True)]
        highs = [p["ci_high"] if p.get("ci_high") is not None else y for p, y in zip(points, ys, strict=True)]
        label = name + (" (chosen)" if name == chosen else " (dropped)" if name in dropped else "")
        style = _style(index)
        if name == chosen:
            style["line"]["width"] = 4
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                name=label,
                mode="lines+markers" if len(points) > 1 else "markers",
                customdata=[
                    [p["level"], lo, hi, p.get("n")] for p, lo, hi in zip(points, lows, highs, strict=True)
                ],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [max(0.0, h - y) for h, y in zip(highs, ys, strict=True)],
                    "arrayminus": [max(0.0, y - lo) for lo, y in zip(lows, ys, strict=True)],
                    "color": style["line"]["color"],
                    "thickness": 1.5,
                    "width": 5,
                },
                hovertemplate=(
                    f"{name} at %{{customdata[0]:g}}: %{{y:.2f}}{TIMES} "
                    "[%{customdata[1]:.2f}, %{customdata[2]:.2f}], n=%{customdata[3]}<extra></extra>"
                ),
                **style,
            )
        )
        drawn.extend(p["level"] for p in points)
    if not drawn:
        no_data(fig, "No candidate could be compared with speculation off yet.")
        return to_dict(fig)
    fig.add_hline(
        y=1,
        line={"color": OKABE_ITO["black"], "dash": "dot", "width": 1},
        annotation_text=f"1{TIMES} (no change)",
        annotation_position="bottom right",
    )
    crossover = rec.get("crossover") or {}
    if chosen and crossover.get("level") is not None:
        fig.add_vline(
            x=crossover["level"],
            line={"color": OKABE_ITO["black"], "dash": "dash", "width": 1.5},
            annotation_text=f"{chosen}'s crossover at {crossover['level']:g}",
            annotation_position="top left",
        )
    log_level_axis(fig, rec.get("levels") or drawn)
    return to_dict(fig)


def front_points(rec: Json) -> list[dict[str, Any]]:
    """Per candidate with a measured curve: its value, its cost, and whether it is on the
    front (no other candidate is at least as fast and at most as costly, better in one).
    Cost is memory (GiB) when every candidate states it, else the assets it needs."""
    schedulable = {c["name"]: c.get("schedulable", True) for c in rec.get("candidates", [])}
    cands = [c for c in rec.get("candidates", []) if c.get("name") in (rec.get("curves") or {})]
    by_memory = bool(cands) and all(c.get("memory_gib") is not None for c in cands)
    points = []
    for c in cands:
        speedups = [p["speedup"] for p in rec["curves"][c["name"]] if p.get("speedup") is not None]
        if not speedups:
            continue
        points.append(
            {
                "name": c["name"],
                "method": c.get("method"),
                "tokens": c.get("tokens"),
                "value": point_value(speedups, schedulable=schedulable.get(c["name"], True)),
                "cost": float(c["memory_gib"] if by_memory else c.get("assets", 0)),
                "cost_kind": "memory" if by_memory else "assets",
            }
        )
    for p in points:
        p["front"] = not any(
            q is not p
            and q["value"] >= p["value"]
            and q["cost"] <= p["cost"]
            and (q["value"] > p["value"] or q["cost"] < p["cost"])
            for q in points
        )
    return points


def pareto_front(rec: Json) -> dict[str, Any]:
    points = front_points(rec)
    by_memory = bool(points) and points[0]["cost_kind"] == "memory"
    x_title = (
        "memory of the assets (GiB)" if by_memory else "assets the operator provides (draft models, heads)"
    )
    fig = go.Figure(
        layout=layout(
            f"Speedup vs. cost, lane {rec.get('lane', '?')}",
            x_title,
            f"speedup over the levels ({TIMES}, geometric mean)",
            showlegend=True,
        )
    )
    if not points:
        no_data(fig, "No candidate has a measured speedup yet.")
        return to_dict(fig)
    chosen = _chosen_name(rec)
    groups = (
        ("on the front (nothing is faster for less)", [p for p in points if p["front"]], "star", 14),
        ("dominated", [p for p in points if not p["front"]], "circle-open", 10),
    )
    for label, group, symbol, size in groups:
        if not group:
            continue
        fig.add_trace(
            go.Scatter(
                x=[p["cost"] for p in group],
                y=[p["value"] for p in group],
                text=[p["name"] + (" (chosen)" if p["name"] == chosen else "") for p in group],
                mode="markers+text",
                textposition="middle right",
                name=label,
                marker={
                    "symbol": symbol,
                    "size": size,
                    "color": OKABE_ITO["vermillion" if symbol == "star" else "blue"],
                    "line": {"color": OKABE_ITO["black"], "width": 1},
                },
                customdata=[[p["method"], p["tokens"]] for p in group],
                hovertemplate=(
                    "%{text}: %{customdata[0]}, %{customdata[1]} tokens; %{y:.3f}"
                    + TIMES
                    + " at cost %{x:g}<extra></extra>"
                ),
            )
        )
    front = sorted((p for p in points if p["front"]), key=lambda p: p["cost"])
    if len(front) > 1:
        fig.add_trace(
            go.Scatter(
                x=[p["cost"] for p in front],
                y=[p["value"] for p in front],
                mode="lines",
                line={"color": OKABE_ITO["vermillion"], "dash": "dot", "width": 1, "shape": "hv"},
                name="the front",
                hoverinfo="skip",
            )
        )
    fig.add_hline(
        y=1,
        line={"color": OKABE_ITO["black"], "dash": "dot", "width": 1},
        annotation_text=f"1{TIMES} (speculation off)",
        annotation_position="bottom right",
    )
    # Room either side of the cheapest and the costliest, so no marker or label sits on an edge.
    top = max(p["cost"] for p in points)
    pad = 0.5 if not by_memory else max(0.1, 0.15 * top)
    fig.update_xaxes(range=[-pad, top + 2 * pad], **({} if by_memory else {"dtick": 1}))
    return to_dict(fig)


def advice_figures(recommendations: Mapping[str, Json]) -> list[dict[str, Any]]:
    """Every lane's two figures, lanes in name order: `[{"id", "lane", "title", "figure"}]`;
    `id` is safe as an HTML id (lane names are free text)."""
    out: list[dict[str, Any]] = []
    for index, lane in enumerate(sorted(recommendations)):
        for kind, build in (("curves", speedup_curves), ("front", pareto_front)):
            figure = build(recommendations[lane])
            title = figure.get("layout", {}).get("title", {}).get("text", kind)
            out.append({"id": f"advice-lane{index}-{kind}", "lane": lane, "title": title, "figure": figure})
    return out
