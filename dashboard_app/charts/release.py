"""Every chart of a release page in one call, in the order the page shows them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dashboard_app.charts.acceptance import acceptance_by_position
from dashboard_app.charts.checks import memory_by_level, output_stability
from dashboard_app.charts.distributions import latency_distribution, ttft_by_level
from dashboard_app.charts.speculation import acceptance_by_level, tokens_per_chunk
from dashboard_app.charts.speedup import speedup_vs_load

Aggregates = Sequence[Mapping[str, Any]]


def release_figures(
    *,
    baseline: Mapping[str, Aggregates],
    candidate: Mapping[str, Aggregates],
    gate: Mapping[str, Any] | None = None,
    min_headroom_gib: float | None = None,
) -> list[dict[str, Any]]:
    """`baseline`/`candidate`: lane → that arm's level aggregates (`aggregate_level` output,
    with `level_kind`/`level`); `gate`: `GateResult.as_dict()` when the gate has run.
    Returns `[{"id", "lane", "title", "figure"}]`; `id` is unique and safe as an HTML id."""
    out: list[dict[str, Any]] = []

    def add(chart_id: str, lane: str | None, figure: dict[str, Any]) -> None:
        title = figure.get("layout", {}).get("title", {}).get("text", chart_id)
        out.append({"id": chart_id, "lane": lane, "title": title, "figure": figure})

    for index, lane in enumerate(sorted(baseline.keys() | candidate.keys())):
        base, cand = baseline.get(lane, []), candidate.get(lane, [])
        prefix = f"lane{index}"  # lane names are free text: keep them out of HTML ids
        if gate is not None:
            add(f"{prefix}-speedup", lane, speedup_vs_load(gate, lane=lane))
        add(f"{prefix}-tpot", lane, latency_distribution(base, cand, lane=lane, metric="tpot_ms"))
        add(f"{prefix}-ttft", lane, ttft_by_level(base, cand, lane=lane))
        add(f"{prefix}-chunks", lane, tokens_per_chunk(base, cand, lane=lane))
        add(f"{prefix}-acceptance", lane, acceptance_by_level(cand, lane=lane))
        add(f"{prefix}-positions", lane, acceptance_by_position(base, cand, lane=lane))
        add(
            f"{prefix}-memory",
            lane,
            memory_by_level(base, cand, lane=lane, min_headroom_gib=min_headroom_gib),
        )
    if gate is not None:
        add("stability", None, output_stability(gate))
    return out
