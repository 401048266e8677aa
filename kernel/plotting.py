"""The base every server-built Plotly figure shares (the release page's, the fleet view's,
a workload's): the palette, the layout defaults, a no-data note, and turning a figure into
JSON a page can embed. Pure Plotly and numpy, no Django, so the pure chart packages of
any app may use it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

# Okabe & Ito (2008), "Color Universal Design": safe for the common colour-vision deficiencies.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#999999",
}


def layout(title: str, x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    """A small explicit layout (template "none": the default template would add ~6 kB)."""
    base: dict[str, Any] = {
        "template": "none",
        "title": {"text": title, "x": 0.01, "xanchor": "left"},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 13},
        "xaxis": {"title": {"text": x_title}, "showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False},
        "yaxis": {"title": {"text": y_title}, "showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False},
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        "margin": {"l": 64, "r": 24, "t": 80, "b": 64},
    }
    base.update(extra)
    return base


def no_data(fig: go.Figure, message: str) -> None:
    """The figure's message in its middle, where the data would be."""
    fig.add_annotation(
        text=message, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5, font={"size": 14}
    )


def to_dict(fig: go.Figure) -> dict[str, Any]:
    """Plain JSON types only (numpy arrays become lists), ready for `figure_json`."""
    result: dict[str, Any] = json.loads(pio.to_json(fig, validate=True, remove_uids=True))
    return result


def _default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_SCRIPT_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def figure_json(fig_dict: Mapping[str, Any]) -> str:
    """JSON safe inside `<script type="application/json">`: `<`, `>` and `&` are escaped
    (so no `</script>` or `<!--` can end the element), as are the line separators that
    old JavaScript parsers reject. `JSON.parse` reads it back unchanged."""
    text = json.dumps(fig_dict, default=_default, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return text.translate(_SCRIPT_ESCAPES)
