"""Per-request draft counts summed over a level (llama.cpp `timings`, the in-process
Transformers engine's candidate generator): each request's own, so already the level's."""

from __future__ import annotations

from collections.abc import Sequence

from worker.harness.results.requests import RequestRecord
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported


def from_requests(
    records: Sequence[RequestRecord], source: str
) -> SpeculationReported | SpeculationNotReported:
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
