"""A level's speculation as the engine reported it, or why it is not reported.

Every figure is the level's own: counters read before and after it and differenced, or
per-request counts summed, never an engine's average since it started. Result schema 2
gained `accepted_per_position` and `mean_acceptance_length_by_rank` additively (optional,
absent from older results), so every schema 2 result stays valid.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from worker.harness.results.bounds import MAX_REQUESTS, MAX_TOKENS, StrictModel

# Draft positions a step can have (vLLM's num_speculative_tokens, llama.cpp's n_max): far
# above any engine's practical depth, low enough to bound a result.
MAX_DRAFT_POSITIONS = 1024
MAX_DP_RANKS = 4096
_MAX_COUNT = MAX_REQUESTS * MAX_TOKENS
RankLength = Annotated[float, Field(ge=1, allow_inf_nan=False)]


class SpeculationReported(StrictModel):
    reported: Literal[True] = True
    acceptance_rate: float | None = Field(default=None, ge=0, le=1)
    mean_acceptance_length: float | None = Field(default=None, ge=1)
    draft_tokens: int | None = Field(default=None, ge=0, le=_MAX_COUNT)
    accepted_tokens: int | None = Field(default=None, ge=0, le=_MAX_COUNT)
    drafts: int | None = Field(default=None, ge=0, le=_MAX_COUNT)
    accepted_per_position: list[Annotated[int, Field(ge=0, le=_MAX_COUNT)]] | None = Field(
        default=None,
        max_length=MAX_DRAFT_POSITIONS,
        description="accepted draft tokens at each draft position (first position first) over the "
        "level; divided by `drafts`, the acceptance rate by position",
    )
    mean_acceptance_length_by_rank: list[RankLength | None] | None = Field(
        default=None,
        max_length=MAX_DP_RANKS,
        description="per data-parallel rank (SGLang): that rank's mean acceptance length over the "
        "level; null for a rank that did not speculate",
    )
    source: str = Field(max_length=2000)

    @model_validator(mode="after")
    def _consistent(self) -> SpeculationReported:
        if (
            self.acceptance_rate is None
            and self.mean_acceptance_length is None
            and not any(x is not None for x in self.mean_acceptance_length_by_rank or [])
        ):
            raise ValueError(
                "a reported speculation needs acceptance_rate, mean_acceptance_length or a rank's "
                "mean_acceptance_length_by_rank"
            )
        if (
            self.draft_tokens is not None
            and self.accepted_tokens is not None
            and self.accepted_tokens > self.draft_tokens
        ):
            raise ValueError("accepted_tokens exceeds draft_tokens")
        if self.accepted_per_position is not None:
            self._check_positions(self.accepted_per_position)
        return self

    def _check_positions(self, per_position: list[int]) -> None:
        if self.drafts is None:
            raise ValueError("accepted_per_position needs drafts (its denominator)")
        if any(n > self.drafts for n in per_position):
            raise ValueError("accepted_per_position: a position accepted more tokens than there were drafts")
        accepted, total = self.accepted_tokens, sum(per_position)
        if accepted is not None and total != accepted:
            raise ValueError(f"accepted_per_position sums to {total}, not accepted_tokens ({accepted})")

    def rate_by_position(self) -> list[float] | None:
        """Accepted / drafts at each draft position, where the engine counted per position."""
        if self.accepted_per_position is None or not self.drafts:
            return None
        return [n / self.drafts for n in self.accepted_per_position]


class SpeculationNotReported(StrictModel):
    reported: Literal[False] = False
    reason: str = Field(default="the engine reports no speculation metrics", max_length=2000)


Speculation = Annotated[SpeculationReported | SpeculationNotReported, Field(discriminator="reported")]
