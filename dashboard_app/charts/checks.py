"""The deterministic checks as charts: output stability per lane, memory per level."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from dashboard_app.charts.style import bar_style, by_level, corner_note, layout, level_axis_title, level_text
from kernel.plotting import OKABE_ITO, no_data, to_dict
from worker.spec import ARMS

Aggregates = Sequence[Mapping[str, Any]]


def output_stability(gate_result: Mapping[str, Any]) -> dict[str, Any]:
    """The candidate's greedy exact-match rate per lane against the contract's minimum, with
    the verdict written on each bar (colour is not the only signal)."""
    checks = [c for c in gate_result.get("checks", []) if c["rule_id"] == "output_stability"]
    fig = go.Figure(
        layout=layout(
            "Output stability (greedy, token-exact vs. baseline)", "lane", "exact-match rate", showlegend=True
        )
    )
    measured = [c for c in checks if c["estimate"] is not None]
    if measured:
        fig.add_trace(
            go.Bar(
                x=[c["lane"] for c in measured],
                y=[c["estimate"] for c in measured],
                text=[f"{c['estimate']:.1%} ({c['verdict']})" for c in measured],
                # Inside the bar's top: the required line's label sits above the line.
                textposition="inside",
                insidetextanchor="end",
                name="candidate",
                hovertemplate="%{x}: %{y:.2%} of outputs identical<extra></extra>",
                **bar_style("candidate"),
            )
        )
    required = next((c["required"] for c in checks if c.get("required") is not None), None)
    if required is not None:
        fig.add_hline(
            y=required,
            line={"color": OKABE_ITO["green"], "dash": "dash"},
            annotation_text=f"required ≥ {required:.0%}",
            annotation_position="top right",
        )
    unmeasured = [c["lane"] for c in checks if c["estimate"] is None]
    if not measured:
        no_data(
            fig, "Output stability was not measured." if checks else "The contract sets no stability rule."
        )
    elif unmeasured:
        corner_note(fig, f"not measured: {', '.join(unmeasured)}")
    fig.update_xaxes(type="category")
    fig.update_yaxes(range=[0, 1.15], tickformat=".0%")
    return to_dict(fig)


def memory_by_level(
    baseline: Aggregates, candidate: Aggregates, *, lane: str, min_headroom_gib: float | None = None
) -> dict[str, Any]:
    """Memory headroom (GiB) per level, grouped bars per arm (peak in the hover), with the
    contract's minimum headroom as a line. Memory measured once per run (`memory_scope`
    "run") is one bar per arm, labelled "whole run", not repeated per level."""
    fig = go.Figure(
        layout=layout(
            f"Memory headroom, lane {lane}",
            level_axis_title([*baseline, *candidate]),
            "headroom (GiB)",
            barmode="group",
        )
    )
    drawn = False
    for arm, aggregates in zip(ARMS, (baseline, candidate), strict=True):
        rows = [
            a for _, a in sorted(by_level(aggregates).items()) if a["scalars"].get("headroom_gib") is not None
        ]
        run_wide = all(a["scalars"].get("memory_scope") == "run" for a in rows)
        rows = rows[:1] if run_wide else rows
        if not rows:
            continue
        drawn = True
        fig.add_trace(
            go.Bar(
                x=["whole run" if run_wide else level_text(a) for a in rows],
                y=[a["scalars"]["headroom_gib"] for a in rows],
                customdata=[[a["scalars"].get("peak_gib")] for a in rows],
                text=[f"{a['scalars']['headroom_gib']:.1f}" for a in rows],
                textposition="outside",
                name=arm,
                hovertemplate=(
                    f"{arm} at %{{x}}: headroom %{{y:.1f}} GiB, "
                    "peak %{customdata[0]:.1f} GiB<extra></extra>"
                ),
                **bar_style(arm),
            )
        )
    if min_headroom_gib is not None:
        fig.add_hline(
            y=min_headroom_gib,
            line={"color": OKABE_ITO["black"], "dash": "dash"},
            annotation_text=f"required ≥ {min_headroom_gib:g} GiB",
        )
    if not drawn:
        no_data(fig, "Memory was not reported.")
    fig.update_xaxes(type="category")
    return to_dict(fig)
