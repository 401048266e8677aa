"""The base every server-built Plotly figure shares (the release page's, the fleet view's,
a workload's): the palette, the layout defaults, a no-data note, and turning a figure into
JSON a page can embed. Pure Plotly and numpy, no Django, so the pure chart packages of
any app may use it."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

TIMES = "\u00d7"  # the multiplication sign of "1.5x" (escaped: ruff flags the literal)

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


def no_data_note(message: str) -> dict[str, Any]:
    """The annotation of a figure's message in its middle, where the data would be."""
    return {
        "text": message,
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": 0.5,
        "y": 0.5,
        "font": {"size": 14},
    }


def log_level_axis_props(levels: Sequence[float]) -> dict[str, Any]:
    """A log x axis ticked at the measured levels, with room either side of the outermost
    ones (the range is in decades), so no point sits on the plot's edge."""
    ticks = sorted({float(x) for x in levels if x and x > 0})
    if not ticks:
        return {"type": "log"}
    left, right = math.log10(ticks[0]), math.log10(ticks[-1])
    pad = max(0.25, 0.1 * (right - left))
    return {
        "type": "log",
        "tickvals": ticks,
        "ticktext": [f"{t:g}" for t in ticks],
        "range": [left - pad, right + pad],
    }


def log_level_axis(fig: go.Figure, levels: Sequence[float]) -> None:
    """`log_level_axis_props` on a graph_objs figure's x axes."""
    fig.update_xaxes(**log_level_axis_props(levels))


def no_data(fig: go.Figure, message: str) -> None:
    """The figure's message in its middle, where the data would be."""
    fig.add_annotation(**no_data_note(message))


def to_dict(fig: go.Figure) -> dict[str, Any]:
    """Plain JSON types only (numpy arrays become lists), ready for `figure_json`; every
    log axis with readable ticks (`readable_log_axes`)."""
    result: dict[str, Any] = json.loads(pio.to_json(fig, validate=True, remove_uids=True))
    readable_log_axes(result)
    return result


@functools.cache
def _template_json(name: str) -> str:
    """The template as Plotly writes it into a figure's layout (once per process)."""
    return json.dumps(json.loads(pio.to_json(go.Figure(layout={"template": name})))["layout"]["template"])


def plain_figure(data: list[dict[str, Any]], layout_: dict[str, Any]) -> dict[str, Any]:
    """The figure `to_dict(go.Figure(data=data, layout=layout_))` gives, built from plain
    dicts: no graph_objs, whose per-property validation was most of a page's CPU (issue 26,
    profile item 3). The caller writes what Plotly would store: every trace with its
    `type`, nested dicts instead of `line_color=` shorthands. Tests hold the two equal
    (tests/dashboard/charts/test_plain_figures.py). A named template is expanded as Plotly
    expands it."""
    result: dict[str, Any] = {"data": data, "layout": dict(layout_)}
    template = result["layout"].get("template")
    if isinstance(template, str):
        result["layout"]["template"] = json.loads(_template_json(template))
    readable_log_axes(result)
    return result


def merge(target: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """`update` into `target` in place, nested dicts merged, anything else replaced: what
    `fig.update_layout(update)` does to a layout."""
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            merge(target[key], value)
        else:
            target[key] = json.loads(json.dumps(value)) if isinstance(value, Mapping | list) else value
    return target


@functools.cache
def _grid_json(rows: int, cols: int, panels: int, shared_yaxes: bool) -> str:
    from plotly.subplots import make_subplots

    grid = make_subplots(
        rows=rows, cols=cols, subplot_titles=[f"{i}" for i in range(panels)], shared_yaxes=shared_yaxes
    )
    layout_ = json.loads(pio.to_json(grid, validate=False))["layout"]
    layout_.pop("template", None)
    return json.dumps(layout_)


def subplot_grid(rows: int, cols: int, titles: list[str], *, shared_yaxes: bool = False) -> dict[str, Any]:
    """The layout `make_subplots(rows, cols, subplot_titles=titles, shared_yaxes=…)` gives
    (axes' domains and anchors, the titles' annotations), without its template: worked out
    by Plotly once per shape, then copied."""
    layout_: dict[str, Any] = json.loads(_grid_json(rows, cols, len(titles), shared_yaxes))
    for annotation, title in zip(layout_.get("annotations", []), titles, strict=True):
        annotation["text"] = title
    return layout_


@functools.cache
def _reference_line_json(direction: str, position: str | None) -> str:
    fig = go.Figure()
    position_ = {} if position is None else {"annotation_position": position}
    if direction == "h":
        fig.add_hline(y=0, annotation_text="-", **position_)
    else:
        fig.add_vline(x=0, annotation_text="-", **position_)
    made = json.loads(pio.to_json(fig, validate=False))["layout"]
    return json.dumps([made["shapes"][0], made["annotations"][0]])


def reference_line(
    direction: str, value: float, *, line: Mapping[str, Any], text: str, position: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The (shape, annotation) `fig.add_hline(y=value, …)` (direction "h") or
    `fig.add_vline(x=value, …)` ("v") adds, with `annotation_text=text` and
    `annotation_position=position`: where Plotly puts the label is asked of Plotly, once
    per direction and position."""
    shape, annotation = json.loads(_reference_line_json(direction, position))
    shape["line"] = dict(line)
    if direction == "h":
        shape["y0"] = shape["y1"] = annotation["y"] = value
    else:
        shape["x0"] = shape["x1"] = annotation["x"] = value
    annotation["text"] = text
    return shape, annotation


def axis_ref(row: int, col: int, cols: int) -> tuple[str, str]:
    """The (xaxis, yaxis) a trace in panel (row, col) of a grid names, 1-based as Plotly's."""
    n = (row - 1) * cols + col
    suffix = "" if n == 1 else str(n)
    return f"x{suffix}", f"y{suffix}"


# Mantissas of the ticks on a log axis, coarsest first: the first that puts at least three
# ticks inside the data's span is used. Plotly's own choice over less than a decade labels
# the minor ticks with their first digit only ("5 6 7 8 9 100 2 3").
_LOG_STEPS: tuple[tuple[float, ...], ...] = (
    (1.0,),
    (1.0, 2.0, 5.0),
    (1.0, 2.0, 3.0, 5.0, 7.0),
    (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0),
)
_MAX_LOG_TICKS = 10


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values for a log axis spanning [low, high] (both > 0), each a round number
    (1, 2, 5 × a power of ten where that gives enough): 5, 10, 20, 50, 100."""
    if not (0 < low <= high) or not math.isfinite(high):
        return []
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    chosen: list[float] = []
    for steps in _LOG_STEPS:
        ticks = [
            float(f"{m * 10.0**e:.6g}")
            for e in range(first, last + 1)
            for m in steps
            if low <= m * 10.0**e * (1 + 1e-9) and m * 10.0**e <= high * (1 + 1e-9)
        ]
        if len(ticks) > _MAX_LOG_TICKS:
            break
        chosen = ticks
        if len(ticks) >= 3:
            break
    if len(chosen) < 2:  # a span too narrow for round numbers inside it: its own ends
        chosen = sorted({float(f"{low:.3g}"), float(f"{high:.3g}")})
    return chosen


def _numbers(values: Any) -> Iterable[float]:
    for v in values if isinstance(values, list) else ():
        if isinstance(v, int | float) and not isinstance(v, bool) and v > 0 and math.isfinite(v):
            yield float(v)


def readable_log_axes(figure: dict[str, Any]) -> None:
    """Give every log axis that has no ticks of its own round-number ticks over its data,
    labelled in full ("20", "50", "100"), in place. An axis' data: the x (or y) values of
    the traces drawn on it, or its explicit range (in decades, as Plotly gives it)."""
    layout_ = figure.get("layout") or {}
    for key, axis in layout_.items():
        if not (key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict)):
            continue
        if axis.get("type") != "log" or "tickvals" in axis or "dtick" in axis:
            continue
        letter, suffix = key[0], key[5:]
        ref = letter + suffix  # "x", "x2": how a trace names its axis
        span = axis.get("range")
        if isinstance(span, list) and len(span) == 2 and all(isinstance(v, int | float) for v in span):
            low, high = 10.0 ** min(span), 10.0 ** max(span)
        else:
            values = [
                v
                for trace in figure.get("data") or []
                if (trace.get(f"{letter}axis") or letter) == ref
                for v in _numbers(trace.get(letter))
            ]
            if not values:
                continue
            low, high = min(values), max(values)
        ticks = log_ticks(low, high)
        if ticks:
            axis["tickvals"] = ticks
            axis["ticktext"] = [f"{t:g}" for t in ticks]


def _default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# str.replace, not str.translate: a figure's text holds non-ASCII (×, →, µ), and translate
# then looks up every character of the JSON in Python (three times json.dumps' own time).
_SCRIPT_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def figure_json(fig_dict: Mapping[str, Any]) -> str:
    """JSON safe inside `<script type="application/json">`: `<`, `>` and `&` are escaped
    (so no `</script>` or `<!--` can end the element), as are the line separators that
    old JavaScript parsers reject. `JSON.parse` reads it back unchanged."""
    text = json.dumps(fig_dict, default=_default, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    for char, escaped in _SCRIPT_ESCAPES:
        text = text.replace(char, escaped)
    return text
