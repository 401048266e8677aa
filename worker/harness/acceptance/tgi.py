"""TGI: the `tgi_request_skipped_tokens` histogram, its `_sum` and `_count` differenced.

huggingface/text-generation-inference backends/v3/src/backend.rs (`send_responses`): for
every generation step of a request the router records
`histogram!("tgi_request_skipped_tokens").record((n - 1) as f64)`, n being the tokens that
step produced: the speculated tokens the target accepted beyond its own one. So over a
level 1 + Δsum / Δcount is the mean tokens per step, the mean acceptance length. Each
request's prefill step is recorded too (one token: 0 skipped), as TGI defines its own
figure. router/src/server.rs gives the histogram buckets 0 … speculate in some releases;
without buckets metrics-exporter-prometheus renders it as a summary: `_sum` and `_count`
exist either way. The draft length (`--speculate`) is not exported, so there is no
acceptance rate here, only the mean acceptance length.
"""

from __future__ import annotations

from worker.harness.acceptance.deltas import Restarted, counter_deltas
from worker.harness.acceptance.prometheus import Metrics
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported

SKIPPED = "tgi_request_skipped_tokens"
SOURCE = f"tgi /metrics {SKIPPED} _sum/_count (difference over the level)"


def from_metrics(
    before: Metrics | None, after: Metrics | None
) -> SpeculationReported | SpeculationNotReported:
    if before is None or after is None:
        return SpeculationNotReported(reason="/metrics could not be read before and after the level")
    if f"{SKIPPED}_count" not in after or f"{SKIPPED}_sum" not in after:
        return SpeculationNotReported(reason=f"no {SKIPPED} histogram in TGI's /metrics")
    names = (f"{SKIPPED}_count", f"{SKIPPED}_sum")
    got = counter_deltas({k: before.total(k) for k in names}, {k: after.total(k) for k in names})
    if isinstance(got, Restarted):
        return SpeculationNotReported(
            reason=f"{SKIPPED} went backwards during the level (the server restarted): its counts are lost"
        )
    steps, skipped = (got[k] for k in names)
    if steps == 0:
        return SpeculationNotReported(reason="TGI recorded no generation steps during the level")
    return SpeculationReported(mean_acceptance_length=1 + skipped / steps, source=SOURCE)
