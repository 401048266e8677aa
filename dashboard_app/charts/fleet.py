"""The fleet view: measured speedups as a lane-by-route heatmap."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from dashboard_app.charts.style import TIMES, layout
from kernel.plotting import OKABE_ITO, no_data_note, plain_figure

# Diverging and colour-blind safe: vermillion (slower) - white (1x) - blue (faster).
_SCALE = [[0.0, OKABE_ITO["vermillion"]], [0.5, "#f7f7f7"], [1.0, OKABE_ITO["blue"]]]
_TICKS = (0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3)


def fleet_heatmap(
    cells: Sequence[Mapping[str, Any]], *, title: str = "Measured speedup by lane and route"
) -> dict[str, Any]:
    """`cells`: `{"lane", "route", "speedup": float | None, "speedup_words"?: str,
    "verdict"?: str}` per measured pair.
    Colour is log2(speedup), centred on 1x; every cell also prints its value (and verdict),
    so the chart reads without colour. Unmeasured pairs stay blank with "—".
    Built as the plain dict Plotly would store (`kernel.plotting.plain_figure`): through
    graph_objs it was a quarter of the fleet page's CPU (issue 26, point 1)."""
    layout_ = layout(title, "route", "lane")
    routes = sorted({str(c["route"]) for c in cells})
    lanes = sorted({str(c["lane"]) for c in cells})
    if not routes:
        layout_["annotations"] = [no_data_note("No route has a measured speedup yet.")]
        return plain_figure([], layout_)
    index = {(str(c["lane"]), str(c["route"])): c for c in cells}
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    for lane in lanes:
        z_row: list[float | None] = []
        t_row: list[str] = []
        for route in routes:
            cell = index.get((lane, route))
            speedup = cell.get("speedup") if cell else None
            if speedup is None or not speedup > 0:
                z_row.append(None)
                t_row.append("—")
                continue
            z_row.append(math.log2(speedup))
            verdict = f"<br>{cell['verdict']}" if cell and cell.get("verdict") else ""
            # With its interval and n where the cell has them: a bare ratio overstates.
            shown = cell.get("speedup_words") if cell else None
            t_row.append(f"{shown or f'{speedup:.2f}{TIMES}'}{verdict}")
        z.append(z_row)
        text.append(t_row)
    heatmap = {
        "type": "heatmap",
        "x": routes,
        "y": lanes,
        "z": z,
        "text": text,
        "texttemplate": "%{text}",
        "colorscale": [list(stop) for stop in _SCALE],
        "zmid": 0,
        "zmin": -math.log2(3),
        "zmax": math.log2(3),
        "xgap": 2,
        "ygap": 2,
        "hoverongaps": False,
        "name": "speedup",
        "hovertemplate": "route %{x}, lane %{y}: %{text}<extra></extra>",
        "colorbar": {
            "title": {"text": "speedup"},
            "tickvals": [math.log2(t) for t in _TICKS],
            "ticktext": [f"{t:g}{TIMES}" for t in _TICKS],
        },
    }
    for axis in ("xaxis", "yaxis"):
        layout_[axis].update(type="category", showgrid=False)
    return plain_figure([heatmap], layout_)
