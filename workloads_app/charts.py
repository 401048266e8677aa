"""Server-built Plotly figures of a workload's stored statistics (formats/stats.py), the
way dashboard_app/charts/ builds the release page's: pure Plotly, no Django. (Domain apps
don't import the dashboard, so the few lines of layout and escaping live here too.)"""

from __future__ import annotations

import json
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

BLUE, VERMILLION, GREEN, GREY = "#0072B2", "#D55E00", "#009E73", "#999999"  # Okabe-Ito

_SCRIPT_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def _layout(title: str, x_title: str, y_title: str) -> dict[str, Any]:
    return {
        "template": "none",
        "title": {"text": title, "x": 0.01, "xanchor": "left"},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 13},
        "xaxis": {"title": {"text": x_title}, "showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False},
        "yaxis": {"title": {"text": y_title}, "showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False},
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        "margin": {"l": 64, "r": 24, "t": 80, "b": 64},
        "bargap": 0.05,
    }


def _to_dict(fig: go.Figure) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(pio.to_json(fig, validate=True, remove_uids=True))
    return result


def figure_json(fig: Mapping[str, Any]) -> str:
    """JSON safe inside `<script type="application/json">` (as dashboard_app's)."""
    return json.dumps(fig, separators=(",", ":"), allow_nan=False, ensure_ascii=False).translate(
        _SCRIPT_ESCAPES
    )


def _bars(dist: Mapping[str, Any], name: str, color: str, pattern: str = "") -> go.Bar:
    edges, counts = dist["histogram"]["edges"], dist["histogram"]["counts"]
    centers = [(a + b) / 2 for a, b in pairwise(edges)]
    widths = [b - a for a, b in pairwise(edges)]
    return go.Bar(
        x=centers,
        y=counts,
        width=widths,
        name=name,
        opacity=0.75,
        marker={"color": color, "line": {"color": "#000", "width": 1}, "pattern": {"shape": pattern}},
        hovertemplate="%{x:.0f}: %{y} requests<extra>" + name + "</extra>",
    )


def _note(fig: go.Figure, text: str) -> None:
    fig.add_annotation(
        text=text, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5, font={"size": 14}
    )


def length_figure(stats: Mapping[str, Any]) -> dict[str, Any]:
    """Prompt (and, for conversations, whole context) lengths, in estimated tokens."""
    fig = go.Figure(layout=_layout("Prompt length", "tokens (estimated)", "requests"))
    prompt, context = stats.get("prompt_tokens"), stats.get("context_tokens")
    if prompt:
        fig.add_trace(_bars(prompt, "prompt", BLUE))
    if context and stats.get("turns", {}).get("max", 1) > 1:
        fig.add_trace(_bars(context, "with the conversation's history", VERMILLION, "/"))
        fig.update_layout(barmode="overlay")
    if not prompt:
        _note(fig, "No prompt lengths.")
    return _to_dict(fig)


def output_figure(stats: Mapping[str, Any]) -> dict[str, Any]:
    out = stats.get("output_tokens")
    fig = go.Figure(layout=_layout("Output length", "tokens (estimated)", "requests"))
    if not out:
        _note(fig, "No reference outputs and no max_tokens: output lengths unknown.")
        return _to_dict(fig)
    source = ", ".join(f"{n} from {k.replace('_', ' ')}" for k, n in sorted(out.get("source", {}).items()))
    fig.add_trace(_bars(out, "output", GREEN))
    fig.update_layout(title={"text": f"Output length ({source})"})
    return _to_dict(fig)


def turns_figure(stats: Mapping[str, Any]) -> dict[str, Any]:
    per = stats.get("turns", {}).get("per_conversation", {})
    fig = go.Figure(layout=_layout("Turns per conversation", "turns", "conversations"))
    fig.add_trace(
        go.Bar(
            x=[int(k) for k in per],
            y=list(per.values()),
            marker={"color": BLUE, "line": {"color": "#000", "width": 1}},
            hovertemplate="%{x} turns: %{y} conversations<extra></extra>",
        )
    )
    fig.update_xaxes(dtick=1)
    return _to_dict(fig)


def overlap_figure(stats: Mapping[str, Any]) -> dict[str, Any]:
    ov = stats.get("ngram_overlap")
    n = ov.get("n", 3) if ov else 3
    fig = go.Figure(layout=_layout(f"Reference output {n}-grams found in the prompt", "share", "requests"))
    if not ov:
        _note(fig, "No reference outputs: the overlap can't be measured.")
        return _to_dict(fig)
    fig.add_trace(_bars(ov, "requests", VERMILLION))
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    return _to_dict(fig)


def workload_figures(stats: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{id, title, json}] for the page."""
    out = []
    for fid, title, build in (
        ("prompt-length", "Prompt length distribution", length_figure),
        ("output-length", "Output length distribution", output_figure),
        ("turns", "Turns per conversation", turns_figure),
        ("ngram-overlap", "n-gram overlap of references and prompts", overlap_figure),
    ):
        out.append({"id": fid, "title": title, "json": figure_json(build(stats))})
    return out
