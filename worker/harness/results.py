"""The benchmark result: pydantic v2 models, importable with only pydantic installed.

The control plane validates uploads with ``BenchResult.model_validate(data)``; impossible
values (negative latencies, TTFT after the end, chunk token counts that don't add up,
more tokens than ``max_tokens``, aggregates that don't match the requests they claim to
summarize) are refused with the field path in the error. ``max_tokens`` may also be
given from outside: ``BenchResult.model_validate(data, context={"max_tokens": 128})``.
"""

from __future__ import annotations

import math
from datetime import datetime
from itertools import pairwise
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from worker.harness.stats import summarize, tpot_ms

RESULT_SCHEMA_VERSION: Literal[1] = 1

NonNegFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
# Aggregates are recomputed from the requests on validation; JSON round-trips floats
# exactly, so this tolerance only absorbs summation order.
_REL_TOL = 1e-6
_ABS_TOL = 1e-6
# A recorded TTFT/E2E and the chunk offsets come from the same clock readings.
_OFFSET_TOL_MS = 1e-3


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)


class RequestSpeculation(_Model):
    """Per-request draft counts where the engine reports them (llama.cpp, transformers)."""

    draft_tokens: int = Field(ge=0)
    accepted_tokens: int = Field(ge=0)
    drafts: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _accepted_within_drafted(self) -> RequestSpeculation:
        if self.accepted_tokens > self.draft_tokens:
            raise ValueError("accepted_tokens exceeds draft_tokens")
        return self


class RequestRecord(_Model):
    """One measured request. Times are milliseconds from the moment it was sent."""

    prompt_id: str
    send_s: NonNegFloat = Field(description="when it was sent, seconds from the level's start")
    scheduled_s: NonNegFloat | None = Field(
        default=None, description="open loop: when it should have been sent (send lag = send_s - this)"
    )
    ttft_ms: NonNegFloat | None = None
    tpot_ms: NonNegFloat | None = None
    e2e_ms: NonNegFloat | None = None
    chunk_offsets_ms: list[NonNegFloat] = Field(
        default_factory=list, description="arrival of every token-bearing chunk, ms after send"
    )
    chunk_tokens: list[Annotated[int, Field(ge=0)]] | None = Field(
        default=None, description="tokens in each chunk; null where the engine doesn't say"
    )
    chunk_tokens_source: Literal["token_ids", "logprobs", "one_per_chunk", "steps"] | None = None
    output_tokens: int = Field(default=0, ge=0)
    prompt_tokens: int | None = Field(
        default=None, ge=0, description="the prompt as the engine counted it (a later turn: with its history)"
    )
    output_tokens_source: Literal["usage", "tokenizer", "chunks"] | None = None
    output_token_ids: list[int] | None = None
    output_text: str = ""
    finish_reason: str | None = None
    speculation: RequestSpeculation | None = None
    error: str | None = Field(default=None, max_length=500)

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> RequestRecord:
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
        offsets = self.chunk_offsets_ms
        if not offsets:
            raise ValueError("a successful request has at least one chunk")
        if any(b < a for a, b in pairwise(offsets)):
            raise ValueError("chunk_offsets_ms must not decrease")
        if abs(offsets[0] - self.ttft_ms) > _OFFSET_TOL_MS:
            raise ValueError("the first chunk's offset must equal ttft_ms")
        if offsets[-1] > self.e2e_ms + _OFFSET_TOL_MS:
            raise ValueError("a chunk arrived after e2e_ms")
        if self.chunk_tokens is not None:
            if len(self.chunk_tokens) != len(offsets):
                raise ValueError("chunk_tokens and chunk_offsets_ms differ in length")
            if sum(self.chunk_tokens) != self.output_tokens:
                raise ValueError(
                    f"chunk_tokens sum to {sum(self.chunk_tokens)}, not output_tokens ({self.output_tokens})"
                )
        if self.output_token_ids is not None and len(self.output_token_ids) != self.output_tokens:
            raise ValueError("output_token_ids length differs from output_tokens")
        if not _close(self.tpot_ms, tpot_ms(self.ttft_ms, self.e2e_ms, self.output_tokens)):
            raise ValueError("tpot_ms is not (e2e_ms - ttft_ms) / (output_tokens - 1)")
        if self.speculation is not None and self.speculation.accepted_tokens >= self.output_tokens + 1:
            raise ValueError("more accepted draft tokens than output tokens")
        max_tokens = (info.context or {}).get("max_tokens") if info else None
        if max_tokens is not None and self.output_tokens > max_tokens:
            raise ValueError(f"output_tokens ({self.output_tokens}) exceeds max_tokens ({max_tokens})")
        return self


class Quantiles(_Model):
    mean: NonNegFloat
    p50: NonNegFloat
    p90: NonNegFloat
    p95: NonNegFloat
    p99: NonNegFloat

    @model_validator(mode="after")
    def _ordered(self) -> Quantiles:
        if not (self.p50 <= self.p90 <= self.p95 <= self.p99):
            raise ValueError("quantiles must satisfy p50 <= p90 <= p95 <= p99")
        return self


class TokensPerChunk(_Model):
    """Tokens per streamed chunk. ``p50``/``max`` are null where the engine doesn't say
    how many tokens each chunk carried (the mean is then total tokens / chunks)."""

    mean: NonNegFloat
    p50: NonNegFloat | None = None
    max: int | None = Field(default=None, ge=0)


class SpeculationReported(_Model):
    reported: Literal[True] = True
    acceptance_rate: float | None = Field(default=None, ge=0, le=1)
    mean_acceptance_length: float | None = Field(default=None, ge=1)
    draft_tokens: int | None = Field(default=None, ge=0)
    accepted_tokens: int | None = Field(default=None, ge=0)
    drafts: int | None = Field(default=None, ge=0)
    source: str

    @model_validator(mode="after")
    def _consistent(self) -> SpeculationReported:
        if self.acceptance_rate is None and self.mean_acceptance_length is None:
            raise ValueError("a reported speculation needs acceptance_rate or mean_acceptance_length")
        if (
            self.draft_tokens is not None
            and self.accepted_tokens is not None
            and self.accepted_tokens > self.draft_tokens
        ):
            raise ValueError("accepted_tokens exceeds draft_tokens")
        return self


class SpeculationNotReported(_Model):
    reported: Literal[False] = False
    reason: str = "the engine reports no speculation metrics"


Speculation = Annotated[SpeculationReported | SpeculationNotReported, Field(discriminator="reported")]


class SLO(_Model):
    """Thresholds a request must meet to count towards goodput (all given ones)."""

    ttft_ms: float | None = Field(default=None, gt=0)
    tpot_ms: float | None = Field(default=None, gt=0)
    e2e_ms: float | None = Field(default=None, gt=0)

    def met_by(self, r: RequestRecord) -> bool:
        if r.error is not None:
            return False
        checks = ((self.ttft_ms, r.ttft_ms), (self.tpot_ms, r.tpot_ms), (self.e2e_ms, r.e2e_ms))
        return all(limit is None or (value is not None and value <= limit) for limit, value in checks)


class LevelResult(_Model):
    concurrency: int | None = Field(default=None, ge=1)
    rate: float | None = Field(default=None, gt=0)
    duration_s: NonNegFloat
    requests_total: int = Field(ge=0)
    completed: int = Field(ge=0)
    errors: int = Field(ge=0)
    error_rate: float = Field(ge=0, le=1)
    truncated: bool = Field(default=False, description="the time budget ended the level early")
    ttft_ms: Quantiles | None
    tpot_ms: Quantiles | None
    itl_chunk_ms: Quantiles | None = Field(description="gaps between chunks; NOT per token")
    e2e_ms: Quantiles | None
    tokens_per_chunk: TokensPerChunk | None
    output_tokens: int = Field(ge=0)
    output_tokens_per_s: NonNegFloat
    requests_per_s: NonNegFloat
    goodput_requests_per_s: NonNegFloat | None = None
    max_send_lag_ms: NonNegFloat | None = None
    speculation: Speculation = Field(default_factory=SpeculationNotReported)
    requests: list[RequestRecord]

    @model_validator(mode="after")
    def _matches_requests(self) -> LevelResult:
        if (self.concurrency is None) == (self.rate is None):
            raise ValueError("a level has exactly one of concurrency or rate")
        ok = [r for r in self.requests if r.error is None]
        if self.requests_total != len(self.requests):
            raise ValueError("requests_total differs from the number of request records")
        if self.errors != len(self.requests) - len(ok):
            raise ValueError("errors differs from the failed request records")
        if self.completed != len(ok):
            raise ValueError("completed differs from the successful request records")
        if not _close(self.error_rate, self.errors / len(self.requests) if self.requests else 0.0):
            raise ValueError("error_rate is not errors / requests_total")
        if self.output_tokens != sum(r.output_tokens for r in ok):
            raise ValueError("output_tokens differs from the sum over successful requests")
        expected = level_quantiles(ok)
        for name, value in expected.items():
            got = getattr(self, name)
            got_dict = got.model_dump() if got is not None else None
            if (got_dict is None) != (value is None) or (
                got_dict is not None
                and value is not None
                and not all(_close(got_dict[k], value[k]) for k in value)
            ):
                raise ValueError(f"{name} does not match the request records")
        return self


def level_quantiles(ok: list[RequestRecord]) -> dict[str, dict[str, float] | None]:
    """The latency quantiles a level must carry, from its successful requests."""
    gaps: list[float] = []
    for r in ok:
        offs = r.chunk_offsets_ms
        gaps.extend(b - a for a, b in pairwise(offs))
    return {
        "ttft_ms": summarize([r.ttft_ms for r in ok if r.ttft_ms is not None]),
        "tpot_ms": summarize([r.tpot_ms for r in ok if r.tpot_ms is not None]),
        "e2e_ms": summarize([r.e2e_ms for r in ok if r.e2e_ms is not None]),
        "itl_chunk_ms": summarize(gaps),
    }


class MemorySnapshot(_Model):
    """GPU memory where there is a GPU (summed over visible devices), else process RSS."""

    kind: Literal["gpu", "process_rss"]
    used_gib: NonNegFloat
    free_gib: NonNegFloat | None = None
    total_gib: NonNegFloat | None = None


class MemoryReport(_Model):
    before: MemorySnapshot | None = None
    after: MemorySnapshot | None = None
    peak_gib: NonNegFloat | None = Field(default=None, description="CUDA allocator or RSS high-water mark")
    peak_source: str | None = None


class GpuFacts(_Model):
    name: str
    memory_total_gib: NonNegFloat
    driver: str | None = None
    cuda: str | None = None


class HardwareFacts(_Model):
    hostname: str
    cpu_model: str
    cpu_cores: int = Field(ge=1)
    memory_gib: NonNegFloat
    gpus: list[GpuFacts] = Field(default_factory=list)


class EngineInfo(_Model):
    kind: Literal["openai", "managed", "transformers"]
    server: str | None = Field(default=None, description="vllm | sglang | tgi | llamacpp | generic")
    base_url: str | None = None
    model: str
    api: Literal["completions", "chat"] | None = None
    version: str | None = None
    command: list[str] | None = Field(default=None, description="the exact argv, for a managed engine")
    method: dict[str, Any] = Field(default_factory=dict, description="speculation settings in use")
    device: str | None = None


class WorkloadInfo(_Model):
    name: str
    version: str | None = None
    prompts: int = Field(ge=1, description="requests in the workload (every turn of every conversation)")
    repeated_prompts: bool = False
    digest: str | None = Field(default=None, description="sha256 of a registered workload's canonical form")
    conversations: int | None = Field(default=None, ge=1, description="multi-turn workloads: conversations")


class Sampling(_Model):
    temperature: float = Field(default=0.0, ge=0)
    top_p: float = Field(default=1.0, gt=0, le=1)

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


class BenchResult(_Model):
    schema_version: Literal[1] = RESULT_SCHEMA_VERSION
    harness_version: str
    engine: EngineInfo
    workload: WorkloadInfo
    sampling: Sampling
    max_tokens: int = Field(ge=1)
    seed: int
    warmup_requests: int = Field(ge=0)
    slo: SLO | None = None
    hardware: HardwareFacts
    memory: MemoryReport = Field(default_factory=MemoryReport)
    headroom_gib: float | None = Field(default=None, description="GPU memory free after the run")
    headroom_min_gib: float | None = None
    headroom_ok: bool | None = None
    started_at: datetime
    finished_at: datetime
    levels: list[LevelResult]
    warnings: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _max_tokens_into_context(cls, data: Any, info: ValidationInfo) -> Any:
        # The request-level check reads max_tokens from the context; a result carries its
        # own, and an explicit context (the control plane's contract) wins.
        if isinstance(data, dict) and info.context is not None and "max_tokens" in info.context:
            ctx_max = info.context["max_tokens"]
            if isinstance(data.get("max_tokens"), int) and data["max_tokens"] > ctx_max:
                raise ValueError(f"max_tokens {data['max_tokens']} exceeds the allowed {ctx_max}")
        return data

    @model_validator(mode="after")
    def _consistent(self) -> BenchResult:
        if self.finished_at < self.started_at:
            raise ValueError("finished_at is before started_at")
        for i, level in enumerate(self.levels):
            for j, r in enumerate(level.requests):
                if r.error is None and r.output_tokens > self.max_tokens:
                    raise ValueError(
                        f"levels.{i}.requests.{j}: output_tokens ({r.output_tokens}) "
                        f"exceeds max_tokens ({self.max_tokens})"
                    )
        return self
