"""The release page's evidence: the gate's verdict and reasons, the charts built on the
server from per-run aggregates and the gate result, and the benchmark's progress.

Reads a fixed number of queries per page: the release's runs, then their aggregates
(`benchmarks_app.selectors.release_gate_input`, without samples), the latter only when the
figures are not cached yet (`cached_figure_groups`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db.models import F

from benchmarks_app.choices import ACTIVE_STATES
from benchmarks_app.models import Run
from benchmarks_app.selectors import release_gate_input, waiting_reasons
from dashboard_app.charts import figure_json, release_figures
from dashboard_app.selectors.figure_cache import cached_figure_groups
from dashboard_app.selectors.verdict import verdict_at_a_glance
from releases_app.choices import ReleaseState
from releases_app.models import Release


def _no_data_text(figure: dict[str, Any]) -> str | None:
    """A figure that draws nothing is shown as its message in words, not as an empty chart."""
    if figure.get("data"):
        return None
    notes = [a.get("text", "") for a in figure.get("layout", {}).get("annotations", [])]
    return " ".join(n for n in notes if n) or "No data."


def _lane_groups(figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    for fig in figures:
        # Distributions have a panel per load level: they get the page's full width.
        wide = fig["id"].endswith("-tpot")
        empty = _no_data_text(fig["figure"])
        groups[fig["lane"]].append(
            {
                "id": fig["id"],
                "title": fig["title"],
                "json": None if empty else figure_json(fig["figure"]),
                "empty": empty,
                "wide": wide and not empty,
            }
        )
    return [{"lane": lane, "charts": charts} for lane, charts in groups.items()]


def _figure_groups(release: Release, runs: list[Run], gate: dict[str, Any] | None) -> list[dict[str, Any]]:
    measurement = (release.candidate_version.document or {}).get("measurement") or {}
    # The aggregates stored with the results, never the raw samples (benchmarks_app's
    # selector; the runs are already read).
    stored = release_gate_input(release.pk, samples=False, runs=runs)
    figures = []
    if stored.aggregates:
        figures = release_figures(
            baseline=stored.arm_aggregates("baseline"),
            candidate=stored.arm_aggregates("candidate"),
            gate=gate,
            min_headroom_gib=measurement.get("memory_headroom_min_gib"),
        )
    return _lane_groups(figures)


def release_evidence(release: Release) -> dict[str, Any]:
    """Everything `dashboard/_evidence.html` shows for `release`."""
    progress = progress_context(release)
    runs = progress["runs"]
    gate = release.gate_result if isinstance(release.gate_result, dict) else None
    groups = cached_figure_groups(release, runs, lambda: _figure_groups(release, runs, gate))
    checks = (gate or {}).get("checks") or []
    rules = [
        {**rule, "checks": [c for c in checks if c.get("rule_id") == rule.get("rule_id")]}
        for rule in (gate or {}).get("rules") or []
    ]
    return {
        **progress,
        "gate": gate,
        "verdict": verdict_at_a_glance(gate),
        "rules": rules,
        "crossovers": (gate or {}).get("crossover") or [],
        "groups": groups,
    }


def progress_context(release: Release) -> dict[str, Any]:
    """What the progress table shows: the runs, whether to keep polling, and why a run
    that no worker can serve waits (so it says so instead of waiting silently)."""
    # When the retention setting pruned a run's raw samples (the JSON and CSV links go):
    # joined to the same query.
    runs: list[Run] = list(
        Run.objects.filter(release=release)
        .select_related("worker")
        .annotate(samples_pruned_at=F("result__samples_pruned_at"))
        .order_by("id")
    )
    waiting = waiting_reasons(runs)
    for run in runs:
        run.waiting_now = waiting.get(run.pk, "")  # type: ignore[attr-defined]
    return {
        "release": release,
        "runs": runs,
        "active": progress_active(release, runs),
        "waiting_max_s": settings.RUN_WORKER_WAIT_MAX_S,
    }


def progress_active(release: Release, runs: list[Run]) -> bool:
    """Poll while the benchmark can still change: runs queued or running, or the release
    still waiting for its gate."""
    return release.state == ReleaseState.BENCHMARKING or any(r.state in ACTIVE_STATES for r in runs)
