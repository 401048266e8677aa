"""One measured request: its timings, chunks, tokens and (where the engine says) drafts."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)

from worker.harness.results.bounds import (
    MAX_OFFSET_US,
    MAX_PROMPT_TOKENS,
    MAX_TEXT,
    MAX_TOKEN_ID,
    MAX_TOKENS,
    Name,
    NonNegFloat,
    StrictModel,
    close,
)
from worker.harness.stats import tpot_ms

# A recorded TTFT/E2E and the chunk offsets come from the same clock readings (offsets
# rounded to whole microseconds in schema 2: half a microsecond apart at most).
_OFFSET_TOL_MS = 1e-3


class RequestSpeculation(StrictModel):
    """Per-request draft counts where the engine reports them (llama.cpp, transformers)."""

    draft_tokens: int = Field(ge=0, le=100 * MAX_TOKENS)
    accepted_tokens: int = Field(ge=0, le=100 * MAX_TOKENS)
    drafts: int | None = Field(default=None, ge=0, le=100 * MAX_TOKENS)

    @model_validator(mode="after")
    def _accepted_within_drafted(self) -> RequestSpeculation:
        if self.accepted_tokens > self.draft_tokens:
            raise ValueError("accepted_tokens exceeds draft_tokens")
        return self


class RequestRecord(StrictModel):
    """One measured request. Times are milliseconds from the moment it was sent; chunk
    offsets are whole microseconds (schema 2) or float milliseconds (schema 1)."""

    prompt_id: Name
    send_s: NonNegFloat = Field(description="when it was sent, seconds from the level's start")
    scheduled_s: NonNegFloat | None = Field(
        default=None, description="open loop: when it should have been sent (send lag = send_s - this)"
    )
    ttft_ms: NonNegFloat | None = None
    tpot_ms: NonNegFloat | None = None
    e2e_ms: NonNegFloat | None = None
    chunk_offsets_us: list[Annotated[int, Field(ge=0, le=MAX_OFFSET_US)]] | None = Field(
        default=None,
        max_length=MAX_TOKENS,
        description="arrival of every token-bearing chunk, whole microseconds after send",
    )
    chunk_offsets_ms: list[NonNegFloat] | None = Field(
        default=None, max_length=MAX_TOKENS, description="result schema 1: the same in float milliseconds"
    )
    chunk_tokens: list[Annotated[int, Field(ge=0, le=MAX_TOKENS)]] | None = Field(
        default=None,
        max_length=MAX_TOKENS,
        description="tokens in each chunk; null where the engine doesn't say",
    )
    chunk_tokens_source: Literal["token_ids", "logprobs", "one_per_chunk", "steps"] | None = None
    output_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)
    prompt_tokens: int | None = Field(
        default=None,
        ge=0,
        le=MAX_PROMPT_TOKENS,
        description="the prompt as the engine counted it (a later turn: with its history)",
    )
    output_tokens_source: Literal["usage", "tokenizer", "chunks"] | None = None
    output_token_ids: list[Annotated[int, Field(ge=0, le=MAX_TOKEN_ID)]] | None = Field(
        default=None, max_length=MAX_TOKENS
    )
    output_text: str = Field(default="", max_length=MAX_TEXT)
    finish_reason: str | None = Field(default=None, max_length=100)
    speculation: RequestSpeculation | None = None
    error: str | None = Field(default=None, max_length=500)

    def offsets_ms(self) -> np.ndarray[Any, Any]:
        """Chunk arrival offsets in milliseconds, whichever schema the record is in."""
        if self.chunk_offsets_us is not None:
            return np.asarray(self.chunk_offsets_us, dtype=np.float64) / 1000.0
        return np.asarray(self.chunk_offsets_ms or [], dtype=np.float64)

    def compact(self) -> RequestRecord:
        """This record in schema 2: offsets rounded to whole microseconds."""
        if self.chunk_offsets_ms is None:
            return self
        us = [round(x * 1000.0) for x in self.chunk_offsets_ms]
        return self.model_copy(update={"chunk_offsets_us": us, "chunk_offsets_ms": None})

    @model_serializer(mode="wrap")
    def _one_offsets_field(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A record carries the offsets of its own schema only.
        data: dict[str, Any] = handler(self)
        for key in ("chunk_offsets_us", "chunk_offsets_ms"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> RequestRecord:
        if self.chunk_offsets_us is not None and self.chunk_offsets_ms is not None:
            raise ValueError("give chunk_offsets_us (schema 2) or chunk_offsets_ms (schema 1), not both")
        if self.error is not None:
            return self
        if self.ttft_ms is None or self.e2e_ms is None:
            raise ValueError("a successful request needs ttft_ms and e2e_ms")
        if self.ttft_ms > self.e2e_ms:
            raise ValueError(f"ttft_ms ({self.ttft_ms}) is after e2e_ms ({self.e2e_ms})")
        if self.output_tokens < 1:
            raise ValueError("a successful request has at least one output token")
        if self.output_tokens_source is None:
            raise ValueError("output_tokens_source is required for a successful request")
        offsets = self.offsets_ms()
        if not len(offsets):
            raise ValueError("a successful request has at least one chunk")
        if bool((np.diff(offsets) < 0).any()):
            raise ValueError("chunk offsets must not decrease")
        if abs(offsets[0] - self.ttft_ms) > _OFFSET_TOL_MS:
            raise ValueError("the first chunk's offset must equal ttft_ms")
        if offsets[-1] > self.e2e_ms + _OFFSET_TOL_MS:
            raise ValueError("a chunk arrived after e2e_ms")
        if self.chunk_tokens is not None:
            if len(self.chunk_tokens) != len(offsets):
                raise ValueError("chunk_tokens and the chunk offsets differ in length")
            if sum(self.chunk_tokens) != self.output_tokens:
                raise ValueError(
                    f"chunk_tokens sum to {sum(self.chunk_tokens)}, not output_tokens ({self.output_tokens})"
                )
        if self.output_token_ids is not None and len(self.output_token_ids) != self.output_tokens:
            raise ValueError("output_token_ids length differs from output_tokens")
        if not close(self.tpot_ms, tpot_ms(self.ttft_ms, self.e2e_ms, self.output_tokens)):
            raise ValueError("tpot_ms is not (e2e_ms - ttft_ms) / (output_tokens - 1)")
        if self.speculation is not None and self.speculation.accepted_tokens >= self.output_tokens + 1:
            raise ValueError("more accepted draft tokens than output tokens")
        max_tokens = (info.context or {}).get("max_tokens") if info else None
        if max_tokens is not None and self.output_tokens > max_tokens:
            raise ValueError(f"output_tokens ({self.output_tokens}) exceeds max_tokens ({max_tokens})")
        return self
