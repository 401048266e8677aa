"""vLLM: its speculative-decoding counters, summed over engines (data-parallel ranks).

vllm-project/vllm vllm/v1/spec_decode/metrics.py (`SpecDecodingProm`): counters
`vllm:spec_decode_num_drafts`, `…_num_draft_tokens`, `…_num_accepted_tokens` (one series
per engine: labels `model_name`, `engine`) and `vllm:spec_decode_num_accepted_tokens_per_pos`
with a `position` label (0 … num_speculative_tokens − 1), created only when a speculative
config exists; prometheus_client writes counters with their `_total` suffix. Its own
docstring gives acceptance rate = accepted / draft tokens and mean acceptance length =
1 + accepted / drafts (the bonus token included), and per position accepted_per_pos / drafts.
"""

from __future__ import annotations

from worker.harness.acceptance import spec_decode
from worker.harness.acceptance.prometheus import Metrics

NAMES = spec_decode.names("vllm:")


def from_metrics(before: Metrics | None, after: Metrics | None) -> spec_decode.Reading:
    return spec_decode.difference(
        before, after, NAMES, "vllm /metrics vllm:spec_decode_* counters (difference over the level)"
    )
