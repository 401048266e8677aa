"""Acceptance by draft position: how often the token drafted at each position was accepted.

Position 1 is the first drafted token of a verification step; a draft's later positions
count only when every earlier one was accepted, so the curve falls with position, and
where it falls tells whether drafting deeper pays. The rate is accepted / drafts at that
position over the level (`acceptance_by_position` of the stored aggregates), for every
arm and level whose engine counted per position (vLLM, llama-server); the others are
named, never drawn as zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dashboard_app.charts.style import ARM_STYLE, by_level, corner_note_props, layout, level_text
from kernel.plotting import OKABE_ITO, merge, no_data_note, plain_figure
from worker.spec import ARMS

Aggregates = Sequence[Mapping[str, Any]]
# One colour per load level (dash and marker tell the arms apart), in Okabe-Ito order.
LEVEL_COLOURS = [
    OKABE_ITO[k] for k in ("vermillion", "blue", "green", "orange", "purple", "sky_blue", "black")
]


def _rates(aggregate: Mapping[str, Any]) -> list[float] | None:
    rates = aggregate.get("scalars", {}).get("acceptance_by_position")
    return [float(r) for r in rates] if isinstance(rates, list) and rates else None


def acceptance_by_position(baseline: Aggregates, candidate: Aggregates, *, lane: str) -> dict[str, Any]:
    """A line per arm and load level: acceptance rate against draft position (1 = first)."""
    figure_layout = layout(
        f"Acceptance by draft position, lane {lane}",
        "draft position (1 = first drafted token)",
        "accepted / drafts at that position",
        showlegend=True,
    )
    traces: list[dict[str, Any]] = []
    missing = []  # the candidate's levels without per-position counts
    for arm, aggregates in zip(ARMS, (baseline, candidate), strict=True):
        style = ARM_STYLE[arm]
        for index, (_, aggregate) in enumerate(sorted(by_level(aggregates).items())):
            rates = _rates(aggregate)
            level = level_text(aggregate)
            if rates is None:
                if arm == "candidate":
                    missing.append(level)
                continue
            colour = LEVEL_COLOURS[index % len(LEVEL_COLOURS)]
            traces.append(
                {
                    "type": "scatter",
                    "x": list(range(1, len(rates) + 1)),
                    "y": rates,
                    "mode": "lines+markers",
                    "name": f"{arm} at {level}",
                    "line": {"color": colour, "dash": style["dash"], "width": 2},
                    "marker": {"symbol": style["symbol"], "size": 8, "color": colour},
                    "hovertemplate": f"{arm} at {level}, position %{{x}}: %{{y:.0%}} accepted<extra></extra>",
                }
            )
    if not traces:
        figure_layout["annotations"] = [
            no_data_note("Acceptance by draft position was not reported (vLLM and llama-server count it).")
        ]
    elif missing:
        figure_layout["annotations"] = [corner_note_props(f"candidate not reported at {', '.join(missing)}")]
    figure_layout["xaxis"]["dtick"] = 1
    merge(figure_layout["yaxis"], {"range": [0, 1.05], "tickformat": ".0%"})
    return plain_figure(traces, figure_layout)
