"""Speculation metrics as the engine reports them; "not reported" otherwise, never invented.

- vLLM: Prometheus counters scraped before and after a level; the difference is the
  level's. acceptance rate = accepted / draft tokens; mean acceptance length =
  1 + accepted / drafts (tokens per target step, the bonus token included).
- llama.cpp server: ``timings.draft_n`` / ``draft_n_accepted`` on each response, summed.
- SGLang: ``avg_spec_accept_length`` from ``/get_server_info`` (a server-wide average).
- transformers (in process): counted per request from the candidate generator and steps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from worker.harness.results import (
    RequestRecord,
    SpeculationNotReported,
    SpeculationReported,
)

# vLLM exposes these as ``vllm:spec_decode_*_total``; llama-server (``--metrics``) as
# ``llamacpp:spec_decode_*_total``: same meaning, different prefix.
COUNTERS = {
    "drafts": "spec_decode_num_drafts",
    "draft_tokens": "spec_decode_num_draft_tokens",
    "accepted_tokens": "spec_decode_num_accepted_tokens",
}
COUNTER_PREFIX = {"vllm": "vllm:", "llamacpp": "llamacpp:"}
_SAMPLE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)")


def parse_prometheus(text: str) -> dict[str, float]:
    """Sum of every sample per metric name (labels dropped; ``_total`` suffix removed)."""
    totals: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if m is None:
            continue
        name = m.group(1).removesuffix("_total")
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        totals[name] = totals.get(name, 0.0) + value
    return totals


def from_counters(
    server: str, before: dict[str, float] | None, after: dict[str, float] | None
) -> SpeculationReported | SpeculationNotReported:
    """The level's speculation from Prometheus counters read before and after it."""
    prefix = COUNTER_PREFIX[server]
    if before is None or after is None:
        return SpeculationNotReported(reason="the metrics endpoint could not be read")
    names = {k: prefix + name for k, name in COUNTERS.items()}
    if any(name not in after for name in names.values()):
        return SpeculationNotReported(reason=f"no {prefix}spec_decode_* counters (speculation off?)")
    delta = {k: round(after[name] - before.get(name, 0.0)) for k, name in names.items()}
    if delta["drafts"] <= 0 or delta["draft_tokens"] <= 0:
        return SpeculationNotReported(reason="no drafts were made during the level")
    if not 0 <= delta["accepted_tokens"] <= delta["draft_tokens"]:
        return SpeculationNotReported(reason=f"inconsistent {prefix}spec_decode counters (engine restarted?)")
    return SpeculationReported(
        acceptance_rate=delta["accepted_tokens"] / delta["draft_tokens"],
        mean_acceptance_length=1 + delta["accepted_tokens"] / delta["drafts"],
        drafts=delta["drafts"],
        draft_tokens=delta["draft_tokens"],
        accepted_tokens=delta["accepted_tokens"],
        source=f"{server} prometheus counters {prefix}spec_decode_* (difference over the level)",
    )


def from_requests(
    records: Sequence[RequestRecord], source: str
) -> SpeculationReported | SpeculationNotReported:
    """Sum of per-request draft counts (llama.cpp ``timings``, transformers steps)."""
    specs = [r.speculation for r in records if r.error is None and r.speculation is not None]
    if not specs:
        return SpeculationNotReported(reason=f"no per-request draft counts from {source}")
    draft = sum(s.draft_tokens for s in specs)
    accepted = sum(s.accepted_tokens for s in specs)
    if draft == 0:
        return SpeculationNotReported(reason="no drafts were made (speculation off or never triggered)")
    drafts_known = all(s.drafts is not None for s in specs)
    drafts = sum(s.drafts or 0 for s in specs) if drafts_known else None
    return SpeculationReported(
        acceptance_rate=accepted / draft,
        mean_acceptance_length=(1 + accepted / drafts) if drafts else None,
        drafts=drafts,
        draft_tokens=draft,
        accepted_tokens=accepted,
        source=source,
    )


def from_sglang_info(info: dict[str, Any] | None) -> SpeculationReported | SpeculationNotReported:
    if not info:
        return SpeculationNotReported(reason="/get_server_info could not be read")
    states = info.get("internal_states") or [info]
    value = states[0].get("avg_spec_accept_length") if isinstance(states[0], dict) else None
    if not isinstance(value, int | float) or value < 1:
        return SpeculationNotReported(reason="no avg_spec_accept_length in SGLang server info")
    return SpeculationReported(
        mean_acceptance_length=float(value),
        source="sglang /get_server_info avg_spec_accept_length (server-wide average, not per level)",
    )
