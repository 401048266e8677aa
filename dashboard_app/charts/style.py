"""The release page's look of the two arms and their levels, on kernel.plotting's base
(palette, layout, figure JSON).

Baseline and candidate differ in three ways, so neither colour vision nor a greyscale
print is needed to tell them apart: colour (Okabe-Ito, safe for the common colour-vision
deficiencies), line dash, and marker symbol (bars: a fill pattern).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from kernel import plotting
from kernel.plotting import (  # noqa: F401 (the charts import them from here)
    OKABE_ITO,
    TIMES,
    log_level_axis,
    log_level_axis_props,
)

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
    """The shared layout (kernel.plotting), hovering picks the closest point."""
    return plotting.layout(title, x_title, y_title, **{"hovermode": "closest", **extra})


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


def corner_note_props(text: str) -> dict[str, Any]:
    """A quiet note above the plot's top-right corner (what part of the data is missing)."""
    return {
        "text": text,
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": 1,
        "y": 1.08,
        "xanchor": "right",
        "font": {"color": OKABE_ITO["grey"]},
    }


def corner_note(fig: go.Figure, text: str) -> None:
    """`corner_note_props` on a graph_objs figure."""
    fig.add_annotation(**corner_note_props(text))
