"""Output stability: does the candidate say exactly what the baseline said?

Meaningful for greedy lanes only (sampled outputs differ by design). Compared token by
token where both sides recorded token ids, else character by character, and it says
which. Prompts are matched by id; failed requests on either side are left out and listed.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from worker.harness.results.requests import RequestRecord


class Divergence(BaseModel):
    prompt_id: str
    first_divergence: int = Field(description="index of the first differing token (or character)")
    baseline_length: int
    candidate_length: int


class StabilityReport(BaseModel):
    basis: str = Field(description="token_ids | text")
    prompts_compared: int
    exact_matches: int
    exact_match_rate: float | None = Field(description="null when nothing could be compared")
    divergences: list[Divergence]
    not_compared: list[str] = Field(description="prompt ids missing or failed on one side")


def _first_difference(a: Sequence[object], b: Sequence[object]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def compare_outputs(baseline: Sequence[RequestRecord], candidate: Sequence[RequestRecord]) -> StabilityReport:
    def by_id(records: Sequence[RequestRecord]) -> dict[str, RequestRecord]:
        out: dict[str, RequestRecord] = {}
        for r in records:
            if r.error is None:
                out.setdefault(r.prompt_id, r)  # a repeated prompt: its first answer counts
        return out

    base, cand = by_id(baseline), by_id(candidate)
    all_ids = {r.prompt_id for r in baseline} | {r.prompt_id for r in candidate}
    shared = sorted(base.keys() & cand.keys())
    use_ids = all(
        base[i].output_token_ids is not None and cand[i].output_token_ids is not None for i in shared
    )
    divergences: list[Divergence] = []
    for pid in shared:
        a: Sequence[object] = (base[pid].output_token_ids or []) if use_ids else base[pid].output_text
        b: Sequence[object] = (cand[pid].output_token_ids or []) if use_ids else cand[pid].output_text
        index = _first_difference(a, b)
        if index is not None:
            divergences.append(
                Divergence(
                    prompt_id=pid, first_divergence=index, baseline_length=len(a), candidate_length=len(b)
                )
            )
    matches = len(shared) - len(divergences)
    return StabilityReport(
        basis="token_ids" if use_ids else "text",
        prompts_compared=len(shared),
        exact_matches=matches,
        exact_match_rate=matches / len(shared) if shared else None,
        divergences=divergences,
        not_compared=sorted(all_ids - set(shared)),
    )
