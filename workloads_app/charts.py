"""Server-built Plotly figures of a workload's stored statistics (formats/stats.py), the
way dashboard_app/charts/ builds the release page's, on the same base (kernel.plotting):
pure Plotly, no Django."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

import plotly.graph_objects as go

from kernel.plotting import OKABE_ITO, figure_json, layout, no_data, to_dict

BLUE, VERMILLION, GREEN = OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"]


def _layout(title: str, x_title: str, y_title: str) -> dict[str, Any]:
    # Histograms: the bars all but touch.
    return layout(title, x_title, y_title, bargap=0.05)


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
        no_data(fig, "No prompt lengths.")
    return to_dict(fig)


def output_figure(stats: Mapping[str, Any]) -> dict[str, Any]:
    out = stats.get("output_tokens")
    fig = go.Figure(layout=_layout("Output length", "tokens (estimated)", "requests"))
    if not out:
        no_data(fig, "No reference outputs and no max_tokens: output lengths unknown.")
        return to_dict(fig)
    source = ", ".join(f"{n} from {k.replace('_', ' ')}" for k, n in sorted(out.get("source", {}).items()))
    fig.add_trace(_bars(out, "output", GREEN))
    fig.update_layout(title={"text": f"Output length ({source})"})
    return to_dict(fig)


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
    return to_dict(fig)


def overlap_figure(stats: Mapping[str, Any]) -> dict[str, Any]:
    ov = stats.get("ngram_overlap")
    n = ov.get("n", 3) if ov else 3
    fig = go.Figure(layout=_layout(f"Reference output {n}-grams found in the prompt", "share", "requests"))
    if not ov:
        no_data(fig, "No reference outputs: the overlap can't be measured.")
        return to_dict(fig)
    fig.add_trace(_bars(ov, "requests", VERMILLION))
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    return to_dict(fig)


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
