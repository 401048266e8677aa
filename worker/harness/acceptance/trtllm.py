"""TensorRT-LLM: its speculative-decoding counters, differenced over a level.

NVIDIA/TensorRT-LLM tensorrt_llm/metrics/collector.py (`MetricsCollector`, main): the
counters `trtllm_spec_decode_num_draft_tokens_total` and
`trtllm_spec_decode_num_accepted_tokens_total` grow by each iteration's
`specDecodingStats.numDraftTokens` / `numAcceptedTokens` (`log_iteration_stats`, only with
`enable_iter_perf_stats: true` in the LLM args, which SpecPact's render sets), served at
/prometheus/metrics. There is no count of drafts (verification steps), so no mean
acceptance length: the acceptance rate is accepted / drafted tokens.
"""

from __future__ import annotations

from worker.harness.acceptance.deltas import Restarted, counter_deltas
from worker.harness.acceptance.prometheus import Metrics
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported

METRICS_PATH = "/prometheus/metrics"
DRAFTED = "trtllm_spec_decode_num_draft_tokens_total"
ACCEPTED = "trtllm_spec_decode_num_accepted_tokens_total"
SOURCE = "trtllm /prometheus/metrics trtllm_spec_decode_* counters (difference over the level)"


def from_metrics(
    before: Metrics | None, after: Metrics | None
) -> SpeculationReported | SpeculationNotReported:
    if before is None or after is None:
        return SpeculationNotReported(reason=f"{METRICS_PATH} could not be read before and after the level")
    if DRAFTED not in after or ACCEPTED not in after:
        return SpeculationNotReported(
            reason=f"no {DRAFTED} counter (speculation off, or enable_iter_perf_stats not set)"
        )
    names = (DRAFTED, ACCEPTED)
    got = counter_deltas({n: before.total(n) for n in names}, {n: after.total(n) for n in names})
    if isinstance(got, Restarted):
        return SpeculationNotReported(
            reason=f"{got.counter} went backwards during the level (the engine restarted): counts lost"
        )
    drafted, accepted = round(got[DRAFTED]), round(got[ACCEPTED])
    if drafted <= 0:
        return SpeculationNotReported(
            reason="no tokens were drafted during the level (speculation off at this batch size, "
            "or switched off by the engine's acceptance cutoff)"
        )
    if accepted > drafted:
        return SpeculationNotReported(reason=f"inconsistent counters: more accepted than drafted ({SOURCE})")
    return SpeculationReported(
        acceptance_rate=accepted / drafted, draft_tokens=drafted, accepted_tokens=accepted, source=SOURCE
    )
