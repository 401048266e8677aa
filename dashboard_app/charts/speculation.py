"""What speculation does per level: tokens per chunk (both arms) and acceptance (candidate)."""

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
from kernel.plotting import merge, no_data_note, plain_figure
from worker.spec import ARMS

Aggregates = Sequence[Mapping[str, Any]]


def tokens_per_chunk(baseline: Aggregates, candidate: Aggregates, *, lane: str) -> dict[str, Any]:
    """Mean tokens per streamed chunk per level, grouped bars per arm. Without speculation a
    chunk carries about one token; accepted drafts raise it (why per-chunk "ITL" misleads).
    Where the engine didn't say per chunk, the harness's mean (tokens / chunks) is used."""
    figure_layout = layout(
        f"Tokens per streamed chunk, lane {lane} (mean)",
        level_axis_title([*baseline, *candidate]),
        "tokens per chunk",
        barmode="group",
    )
    traces: list[dict[str, Any]] = []
    for arm, aggregates in zip(ARMS, (baseline, candidate), strict=True):
        rows = [
            (level_text(a), mean)
            for _, a in sorted(by_level(aggregates).items())
            if (mean := _mean_tokens_per_chunk(a)) is not None
        ]
        if not rows:
            continue
        traces.append(
            {
                "type": "bar",
                "x": [r[0] for r in rows],
                "y": [r[1] for r in rows],
                "text": [f"{r[1]:.2f}" for r in rows],
                "textposition": "outside",
                "name": arm,
                "hovertemplate": f"{arm} at %{{x}}: %{{y:.2f}} tokens per chunk<extra></extra>",
                **bar_style(arm),
            }
        )
    figure_layout["xaxis"]["type"] = "category"
    if not traces:
        figure_layout["annotations"] = [no_data_note("No chunks were recorded.")]
    return plain_figure(traces, figure_layout)


def _mean_tokens_per_chunk(aggregate: Mapping[str, Any]) -> float | None:
    sk = aggregate["metrics"].get("tokens_per_chunk", {})
    if sk.get("count"):
        return float(sk["mean"])
    mean = aggregate.get("scalars", {}).get("tokens_per_chunk_mean")
    return float(mean) if mean is not None else None


def acceptance_by_level(candidate: Aggregates, *, lane: str) -> dict[str, Any]:
    """The candidate's acceptance rate per level, labelled with the mean acceptance length;
    a level whose engine reports none is named as such rather than drawn as zero."""
    figure_layout = layout(
        f"Draft acceptance, lane {lane}",
        level_axis_title(candidate),
        "acceptance rate (accepted / drafted tokens)",
        showlegend=True,
    )
    traces: list[dict[str, Any]] = []
    ordered = [a for _, a in sorted(by_level(candidate).items())]
    reported = [a for a in ordered if a["scalars"].get("acceptance_rate") is not None]
    if reported:
        traces.append(
            {
                "type": "bar",
                "x": [level_text(a) for a in reported],
                "y": [a["scalars"]["acceptance_rate"] for a in reported],
                "text": [_acceptance_text(a["scalars"]) for a in reported],
                "textposition": "outside",
                "name": "candidate",
                "hovertemplate": "candidate at %{x}: acceptance %{y:.0%}<extra></extra>",
                **bar_style("candidate"),
            }
        )
    missing = [level_text(a) for a in ordered if a["scalars"].get("acceptance_rate") is None]
    if not reported:
        figure_layout["annotations"] = [no_data_note("Acceptance was not reported by the engine.")]
    elif missing:
        figure_layout["annotations"] = [corner_note_props(f"not reported at {', '.join(missing)}")]
    figure_layout["xaxis"]["type"] = "category"
    merge(figure_layout["yaxis"], {"range": [0, 1.1], "tickformat": ".0%"})
    return plain_figure(traces, figure_layout)


def _acceptance_text(scalars: Mapping[str, Any]) -> str:
    text = f"{scalars['acceptance_rate']:.0%}"
    if scalars.get("mean_acceptance_length") is not None:
        text += f" (mean length {scalars['mean_acceptance_length']:.2f})"
    return text
