"""SGLang: each data-parallel rank's acceptance from `/server_info`, read before and after a level.

sgl-project/sglang python/sglang/srt/entrypoints/http_server.py serves `/server_info`
(`/get_server_info` is its deprecated alias, the only one in older releases) with
`internal_states`: one entry per DP rank, each that rank's `Scheduler.get_internal_state()`
(python/sglang/srt/managers/scheduler.py), whose `avg_spec_accept_length` is
cum_spec_accept_length / cum_spec_accept_count: tokens per verify step, the bonus token
included, **since the server started**, absent until the rank has speculated.

A lifetime mean cannot be differenced without its count, which SGLang does not publish.
So a rank's figure is the level's own only when the rank had not speculated before the
level (no average before it); a rank that had is named and the level is "not reported".
With `--enable-metrics`, `sglang:spec_accept_length` and `sglang:spec_accept_rate`
(python/sglang/srt/metrics/collector.py, `SchedulerMetricsCollector`) are gauges
("mostrecent") of the latest `decode_log_interval` batches, not counters either: they are
quoted in the reason, never stored as the level's figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from worker.harness.acceptance.prometheus import Metrics
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported

INFO_PATHS = ("/server_info", "/get_server_info")
AVERAGE = "avg_spec_accept_length"
GAUGES = ("sglang:spec_accept_length", "sglang:spec_accept_rate")


def rank_averages(info: Mapping[str, Any] | None) -> list[float | None] | None:
    """Each DP rank's lifetime average (None: not yet speculated), or None if unreadable."""
    if not isinstance(info, Mapping):
        return None
    states = info.get("internal_states")
    if not isinstance(states, Sequence) or isinstance(states, str) or not states:
        return None
    out: list[float | None] = []
    for state in states:
        value = state.get(AVERAGE) if isinstance(state, Mapping) else None
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 1:
            out.append(float(value))
        else:
            out.append(None)
    return out


def _gauge_note(metrics: Metrics | None) -> str:
    if metrics is None:
        return ""
    # One series only: with several DP ranks the gauges are per rank and quoting one misleads.
    got = [f"{name} {metrics.total(name):g}" for name in GAUGES if len(metrics.series(name)) == 1]
    return f"; the latest logging window's gauges read {', '.join(got)} (not the level's)" if got else ""


def from_server_info(
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    metrics_after: Metrics | None = None,
) -> SpeculationReported | SpeculationNotReported:
    was, now = rank_averages(before), rank_averages(after)
    if was is None or now is None:
        return SpeculationNotReported(reason="SGLang /server_info (or /get_server_info) could not be read")
    if len(was) != len(now):
        return SpeculationNotReported(reason="SGLang's DP ranks changed during the level (restarted?)")
    spoke = [i for i, value in enumerate(now) if value is not None]
    if not spoke:
        return SpeculationNotReported(reason=f"no {AVERAGE} on any DP rank (speculation off?)")
    earlier = [i for i in spoke if was[i] is not None]
    if earlier:
        ranks = ", ".join(str(i) for i in earlier)
        return SpeculationNotReported(
            reason=f"SGLang reports only a lifetime average ({AVERAGE}); DP rank {ranks} had speculated "
            "before the level, so the level's own acceptance cannot be separated from it"
            + _gauge_note(metrics_after)
        )
    by_rank = [now[i] if i in spoke else None for i in range(len(now))]
    values = {v for v in by_rank if v is not None}
    return SpeculationReported(
        # Ranks are weighted by their verify steps, which SGLang does not say: one overall
        # figure only where every rank that speculated agrees (or there is one).
        mean_acceptance_length=values.pop() if len(values) == 1 else None,
        mean_acceptance_length_by_rank=by_rank,
        source=f"sglang /server_info internal_states[].{AVERAGE}, every DP rank fresh at the level's start",
    )
