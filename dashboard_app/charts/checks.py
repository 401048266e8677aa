"""The deterministic checks as charts: output stability per lane, memory per level."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dashboard_app.charts.style import (
    bar_style,
    by_level,
    corner_note_props,
    layout,
    level_axis_title,
    level_text,
)
from kernel.plotting import OKABE_ITO, merge, no_data_note, plain_figure, reference_line
from worker.spec import ARMS

Aggregates = Sequence[Mapping[str, Any]]


def output_stability(gate_result: Mapping[str, Any]) -> dict[str, Any]:
    """The candidate's greedy exact-match rate per lane against the contract's minimum, with
    the verdict written on each bar (colour is not the only signal)."""
    checks = [c for c in gate_result.get("checks", []) if c["rule_id"] == "output_stability"]
    # Plain dicts, not graph_objs (issue 26, item 3): what Plotly would make of them.
    figure_layout = layout(
        "Output stability (greedy, token-exact vs. baseline)", "lane", "exact-match rate", showlegend=True
    )
    traces: list[dict[str, Any]] = []
    shapes: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    measured = [c for c in checks if c["estimate"] is not None]
    if measured:
        traces.append(
            {
                "type": "bar",
                "x": [c["lane"] for c in measured],
                "y": [c["estimate"] for c in measured],
                "text": [f"{c['estimate']:.1%} ({c['verdict']})" for c in measured],
                # Inside the bar's top: the required line's label sits above the line.
                "textposition": "inside",
                "insidetextanchor": "end",
                "name": "candidate",
                "hovertemplate": "%{x}: %{y:.2%} of outputs identical<extra></extra>",
                **bar_style("candidate"),
            }
        )
    required = next((c["required"] for c in checks if c.get("required") is not None), None)
    if required is not None:
        shape, annotation = reference_line(
            "h",
            required,
            line={"color": OKABE_ITO["green"], "dash": "dash"},
            text=f"required ≥ {required:.0%}",
            position="top right",
        )
        shapes.append(shape)
        annotations.append(annotation)
    unmeasured = [c["lane"] for c in checks if c["estimate"] is None]
    if not measured:
        annotations.append(
            no_data_note(
                "Output stability was not measured." if checks else "The contract sets no stability rule."
            )
        )
    elif unmeasured:
        annotations.append(corner_note_props(f"not measured: {', '.join(unmeasured)}"))
    _place(figure_layout, shapes, annotations)
    figure_layout["xaxis"]["type"] = "category"
    merge(figure_layout["yaxis"], {"range": [0, 1.15], "tickformat": ".0%"})
    return plain_figure(traces, figure_layout)


def _place(
    figure_layout: dict[str, Any], shapes: list[dict[str, Any]], annotations: list[dict[str, Any]]
) -> None:
    """Shapes and annotations into the layout, as graph_objs leaves them: absent when none."""
    if shapes:
        figure_layout["shapes"] = shapes
    if annotations:
        figure_layout["annotations"] = annotations


def memory_by_level(
    baseline: Aggregates, candidate: Aggregates, *, lane: str, min_headroom_gib: float | None = None
) -> dict[str, Any]:
    """Memory headroom (GiB) per level, grouped bars per arm (peak in the hover), with the
    contract's minimum headroom as a line. Memory measured once per run (`memory_scope`
    "run") is one bar per arm, labelled "whole run", not repeated per level."""
    figure_layout = layout(
        f"Memory headroom, lane {lane}",
        level_axis_title([*baseline, *candidate]),
        "headroom (GiB)",
        barmode="group",
    )
    traces: list[dict[str, Any]] = []
    shapes: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for arm, aggregates in zip(ARMS, (baseline, candidate), strict=True):
        rows = [
            a for _, a in sorted(by_level(aggregates).items()) if a["scalars"].get("headroom_gib") is not None
        ]
        run_wide = all(a["scalars"].get("memory_scope") == "run" for a in rows)
        rows = rows[:1] if run_wide else rows
        if not rows:
            continue
        traces.append(
            {
                "type": "bar",
                "x": ["whole run" if run_wide else level_text(a) for a in rows],
                "y": [a["scalars"]["headroom_gib"] for a in rows],
                "customdata": [[a["scalars"].get("peak_gib")] for a in rows],
                "text": [f"{a['scalars']['headroom_gib']:.1f}" for a in rows],
                "textposition": "outside",
                "name": arm,
                "hovertemplate": (
                    f"{arm} at %{{x}}: headroom %{{y:.1f}} GiB, "
                    "peak %{customdata[0]:.1f} GiB<extra></extra>"
                ),
                **bar_style(arm),
            }
        )
    if min_headroom_gib is not None:
        shape, annotation = reference_line(
            "h",
            min_headroom_gib,
            line={"color": OKABE_ITO["black"], "dash": "dash"},
            text=f"required ≥ {min_headroom_gib:g} GiB",
        )
        shapes.append(shape)
        annotations.append(annotation)
    if not traces:
        annotations.append(no_data_note("Memory was not reported."))
    _place(figure_layout, shapes, annotations)
    figure_layout["xaxis"]["type"] = "category"
    return plain_figure(traces, figure_layout)
