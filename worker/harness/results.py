"""The benchmark result: pydantic v2 models (and numpy, for the level tallies).

Result schema 2 stores each request's chunk arrival offsets as whole microseconds
(``chunk_offsets_us``, integers) beside its tokens per chunk: per-request arrays, not an
object per chunk, and about half the bytes of schema 1's float milliseconds
(``chunk_offsets_ms``), which is still read. The control plane validates an upload with
``validate_result_stream(data)`` (`worker.harness.validate`), one request at a time, so a
result of 100,000 requests never exists as 100,000 models; ``BenchResult.model_validate``
applies the same rules to a result held whole (the harness's own). Impossible
values (negative latencies, TTFT after the end, chunk token counts that don't add up,
more tokens than ``max_tokens``, aggregates that don't match the requests they claim to
summarize) are refused with the field path in the error. ``max_tokens`` may also be
given from outside: ``BenchResult.model_validate(data, context={"max_tokens": 128})``.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)

from worker.harness.stats import tpot_ms
from worker.harness.tally import LevelTally

RESULT_SCHEMA_VERSION: Literal[2] = 2
READABLE_SCHEMA_VERSIONS = (1, 2)

# Bounds of what a result can hold: beyond them a number is a bug or an attack, and the
# database (bigint, int columns) or the harness's arrays could not hold it.
MAX_TOKENS = 1_000_000  # output tokens of one request (RunSpec.max_tokens has the same bound)
MAX_TOKEN_ID = 2**31 - 1
MAX_OFFSET_US = 7 * 24 * 3600 * 10**6  # a week, in microseconds
MAX_REQUESTS = 10_000_000
MAX_TEXT = 1_000_000
MAX_PROMPT_TOKENS = 10_000_000  # a long conversation with its history, as the engine counts it

NonNegFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=0, le=MAX_REQUESTS)]
Name = Annotated[str, Field(max_length=500)]
# Aggregates are recomputed from the requests on validation; JSON round-trips floats
# exactly, so this tolerance only absorbs summation order.
_REL_TOL = 1e-6
_ABS_TOL = 1e-6
# A recorded TTFT/E2E and the chunk offsets come from the same clock readings (offsets
# rounded to whole microseconds in schema 2: half a microsecond apart at most).
_OFFSET_TOL_MS = 1e-3


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)


class RequestSpeculation(_Model):
    """Per-request draft counts where the engine reports them (llama.cpp, transformers)."""

    draft_tokens: int = Field(ge=0, le=100 * MAX_TOKENS)
    accepted_tokens: int = Field(ge=0, le=100 * MAX_TOKENS)
    drafts: int | None = Field(default=None, ge=0, le=100 * MAX_TOKENS)

    @model_validator(mode="after")
    def _accepted_within_drafted(self) -> RequestSpeculation:
        if self.accepted_tokens > self.draft_tokens:
            raise ValueError("accepted_tokens exceeds draft_tokens")
        return self


class RequestRecord(_Model):
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


class LevelHeader(_Model):
    """A level's own figures, without its request records (what is checked against them)."""

    concurrency: int | None = Field(default=None, ge=1, le=1_000_000)
    rate: float | None = Field(default=None, gt=0, le=1e9)
    duration_s: NonNegFloat
    requests_total: Count
    completed: Count
    errors: Count
    error_rate: float = Field(ge=0, le=1)
    truncated: bool = Field(default=False, description="the time budget ended the level early")
    ttft_ms: Quantiles | None
    tpot_ms: Quantiles | None
    itl_chunk_ms: Quantiles | None = Field(description="gaps between chunks; NOT per token")
    e2e_ms: Quantiles | None
    tokens_per_chunk: TokensPerChunk | None
    output_tokens: int = Field(ge=0, le=MAX_REQUESTS * MAX_TOKENS)
    output_tokens_per_s: NonNegFloat
    requests_per_s: NonNegFloat
    goodput_requests_per_s: NonNegFloat | None = None
    max_send_lag_ms: NonNegFloat | None = None
    speculation: Speculation = Field(default_factory=SpeculationNotReported)

    @model_validator(mode="after")
    def _one_kind(self) -> LevelHeader:
        if (self.concurrency is None) == (self.rate is None):
            raise ValueError("a level has exactly one of concurrency or rate")
        return self

    def mismatch(self, tally: LevelTally) -> str | None:
        """Why these figures are not those of the tallied requests, or None."""
        if self.requests_total != tally.requests:
            return "requests_total differs from the number of request records"
        if self.errors != tally.failed:
            return "errors differs from the failed request records"
        if self.completed != tally.completed:
            return "completed differs from the successful request records"
        if not _close(self.error_rate, tally.failed / tally.requests if tally.requests else 0.0):
            return "error_rate is not errors / requests_total"
        if self.output_tokens != tally.output_tokens:
            return "output_tokens differs from the sum over successful requests"
        for name, value in tally.quantiles().items():
            got = getattr(self, name)
            got_dict = got.model_dump() if got is not None else None
            if (got_dict is None) != (value is None) or (
                got_dict is not None
                and value is not None
                and not all(_close(got_dict[k], value[k]) for k in value)
            ):
                return f"{name} does not match the request records"
        return None


class LevelResult(LevelHeader):
    requests: list[RequestRecord] = Field(max_length=MAX_REQUESTS)

    @model_validator(mode="after")
    def _matches_requests(self) -> LevelResult:
        tally = LevelTally()
        for r in self.requests:
            tally.add(r)
        if (problem := self.mismatch(tally)) is not None:
            raise ValueError(problem)
        return self


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
    name: Annotated[str, Field(max_length=200)]
    memory_total_gib: float = Field(ge=0, le=1e6, allow_inf_nan=False)
    driver: Annotated[str, Field(max_length=100)] | None = None
    cuda: Annotated[str, Field(max_length=100)] | None = None


class HardwareFacts(_Model):
    hostname: Annotated[str, Field(max_length=255)]
    cpu_model: Annotated[str, Field(max_length=200)]
    cpu_cores: int = Field(ge=1, le=1_000_000)
    memory_gib: float = Field(ge=0, le=1e9, allow_inf_nan=False)
    gpus: list[GpuFacts] = Field(default_factory=list, max_length=256)


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


class BenchHeader(_Model):
    """A result without its request records (what the streaming validation holds)."""

    schema_version: Literal[1, 2] = RESULT_SCHEMA_VERSION
    harness_version: Name
    engine: EngineInfo
    workload: WorkloadInfo
    sampling: Sampling
    max_tokens: int = Field(ge=1, le=MAX_TOKENS)
    seed: int = Field(ge=0, le=2**63 - 1)
    warmup_requests: int = Field(ge=0, le=MAX_REQUESTS)
    slo: SLO | None = None
    hardware: HardwareFacts
    memory: MemoryReport = Field(default_factory=MemoryReport)
    headroom_gib: float | None = Field(default=None, description="GPU memory free after the run")
    headroom_min_gib: float | None = None
    headroom_ok: bool | None = None
    started_at: datetime
    finished_at: datetime
    levels: list[LevelHeader] = Field(max_length=1000)
    warnings: list[Annotated[str, Field(max_length=2000)]] = Field(default_factory=list, max_length=1000)

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
    def _in_order(self) -> BenchHeader:
        if self.finished_at < self.started_at:
            raise ValueError("finished_at is before started_at")
        return self

    def request_problem(self, r: RequestRecord, where: str) -> str | None:
        """Why request `r` (at path `where`) cannot belong to this result, or None."""
        if self.schema_version >= 2 and r.chunk_offsets_ms is not None:
            return f"{where}: chunk_offsets_ms is schema 1; schema {self.schema_version} has chunk_offsets_us"
        if self.schema_version == 1 and r.chunk_offsets_us is not None:
            return f"{where}: chunk_offsets_us is not in schema 1 (use chunk_offsets_ms)"
        if r.error is None and r.output_tokens > self.max_tokens:
            return f"{where}: output_tokens ({r.output_tokens}) exceeds max_tokens ({self.max_tokens})"
        return None


class BenchResult(BenchHeader):
    levels: list[LevelResult] = Field(max_length=1000)  # type: ignore[assignment]  # records too

    @model_validator(mode="after")
    def _consistent(self) -> BenchResult:
        for i, level in enumerate(self.levels):
            for j, r in enumerate(level.requests):
                if (problem := self.request_problem(r, f"levels.{i}.requests.{j}")) is not None:
                    raise ValueError(problem)
        return self
