"""Live acceptance over time on one endpoint: the windowed acceptance rate, the approving
benchmark's as a reference line, the contract's floor, restarts and alerts marked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dashboard_app.charts.style import layout
from kernel.plotting import OKABE_ITO, no_data_note, plain_figure


def acceptance_over_time(
    *,
    name: str,
    samples: Sequence[tuple[str, float | None, bool]],
    reference: float | None,
    floor: float | None,
    alerts: Sequence[tuple[str, float]],
) -> dict[str, Any]:
    """`samples`: (time, window acceptance rate or None, counter reset) in time order."""
    figure_layout = layout(
        f"Live acceptance rate, {name}",
        "time (UTC)",
        "acceptance rate",
        yaxis={"range": [0, 1.05], "title": {"text": "acceptance rate"}},
    )
    points = [(t, rate) for t, rate, _ in samples if rate is not None]
    if not points:
        figure_layout["annotations"] = [no_data_note("No window with drafted tokens yet")]
        return plain_figure([], figure_layout)
    # Plain dicts, not graph_objs: 500 points × three endpoints per route page view.
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": [p[0] for p in points],
            "y": [p[1] for p in points],
            "mode": "lines+markers",
            "name": "live (per window)",
            "line": {"color": OKABE_ITO["blue"]},
        }
    ]
    span = [samples[0][0], samples[-1][0]]
    for value, label, color, dash in (
        (reference, "benchmark", OKABE_ITO["black"], "solid"),
        (floor, "floor", OKABE_ITO["vermillion"], "dot"),
    ):
        if value is not None:
            line = {"color": color, "dash": dash}
            traces.append(
                {
                    "type": "scatter",
                    "x": span,
                    "y": [value, value],
                    "mode": "lines",
                    "name": label,
                    "line": line,
                }
            )
    resets = [t for t, _, reset in samples if reset]
    if resets:
        marker = {"symbol": "triangle-up", "color": OKABE_ITO["grey"]}
        traces.append(
            {
                "type": "scatter",
                "x": resets,
                "y": [0] * len(resets),
                "mode": "markers",
                "name": "counter reset",
                "marker": marker,
            }
        )
    if alerts:
        cross: dict[str, Any] = {"symbol": "x", "size": 12, "color": OKABE_ITO["vermillion"]}
        x, y = [a[0] for a in alerts], [a[1] for a in alerts]
        traces.append(
            {"type": "scatter", "x": x, "y": y, "mode": "markers", "name": "alert", "marker": cross}
        )
    return plain_figure(traces, figure_layout)
