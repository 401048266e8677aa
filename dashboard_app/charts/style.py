"""Shared look of the charts, and turning a figure into JSON for a page.

Baseline and candidate differ in three ways, so neither colour vision nor a greyscale
print is needed to tell them apart: colour (Okabe-Ito, safe for the common colour-vision
deficiencies), line dash, and marker symbol (bars: a fill pattern).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

# Okabe & Ito (2008), "Color Universal Design".
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
TIMES = "\u00d7"  # the multiplication sign of "1.5x" (escaped: ruff flags the literal)
ARM_STYLE: dict[str, dict[str, str]] = {
    "baseline": {"color": OKABE_ITO["blue"], "dash": "dash", "symbol": "circle", "pattern": ""},
    "candidate": {"color": OKABE_ITO["vermillion"], "dash": "solid", "symbol": "diamond", "pattern": "/"},
}
METRIC_LABELS = {
    "ttft_ms": ("TTFT", "ms"),
    "tpot_ms": ("TPOT", "ms per output token"),
    "e2e_ms": ("E2E latency", "ms"),
    "itl_chunk_ms": ("Inter-chunk latency", "ms"),
    "tokens_per_chunk": ("Tokens per chunk", "tokens"),
}


def line_style(arm: str) -> dict[str, Any]:
    s = ARM_STYLE[arm]
    return {
        "line": {"color": s["color"], "dash": s["dash"], "width": 2},
        "marker": {"symbol": s["symbol"], "size": 8},
    }


def bar_style(arm: str) -> dict[str, Any]:
    s = ARM_STYLE[arm]
    return {
        "marker": {
            "color": s["color"],
            "line": {"color": OKABE_ITO["black"], "width": 1},
            "pattern": {"shape": s["pattern"], "fgcolor": "#ffffff", "solidity": 0.3, "fillmode": "overlay"},
        }
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
        "hovermode": "closest",
    }
    base.update(extra)
    return base


def level_text(aggregate: Mapping[str, Any]) -> str:
    kind, level = aggregate.get("level_kind"), aggregate.get("level")
    if level is None:
        return "?"
    return f"{level:g} req/s" if kind == "rate" else f"{level:g}"


def level_axis_title(aggregates: Sequence[Mapping[str, Any]]) -> str:
    kinds = {a.get("level_kind") for a in aggregates}
    return "request rate (req/s)" if kinds == {"rate"} else "concurrency (concurrent requests)"


def by_level(aggregates: Sequence[Mapping[str, Any]]) -> dict[tuple[str, float], Mapping[str, Any]]:
    return {(a.get("level_kind", ""), float(a["level"])): a for a in aggregates if a.get("level") is not None}


def no_data(fig: go.Figure, message: str) -> None:
    fig.add_annotation(
        text=message, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5, font={"size": 14}
    )


def log_level_axis(fig: go.Figure, levels: Sequence[float]) -> None:
    """A log x axis ticked at the measured levels, with room either side of the outermost
    ones (the range is in decades), so no point sits on the plot's edge."""
    ticks = sorted({float(x) for x in levels if x and x > 0})
    if not ticks:
        fig.update_xaxes(type="log")
        return
    left, right = math.log10(ticks[0]), math.log10(ticks[-1])
    pad = max(0.25, 0.1 * (right - left))
    fig.update_xaxes(
        type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks], range=[left - pad, right + pad]
    )


def corner_note(fig: go.Figure, text: str) -> None:
    """A quiet note above the plot's top-right corner (what part of the data is missing)."""
    fig.add_annotation(
        text=text,
        showarrow=False,
        xref="paper",
        yref="paper",
        x=1,
        y=1.08,
        xanchor="right",
        font={"color": OKABE_ITO["grey"]},
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
