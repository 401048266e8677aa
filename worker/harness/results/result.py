"""The benchmark result: pydantic v2 models (and numpy, for the level tallies).

The package holds one module per subject: `bounds` (limits and the strict base),
`requests` (a measured request), `speculation` (what the engine reported), `levels` (a
load level and its aggregates) and this one (the whole result and its facts).

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

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, model_validator

from worker.harness.results.bounds import MAX_REQUESTS, MAX_TOKENS, Name, NonNegFloat, StrictModel
from worker.harness.results.levels import SLO, LevelHeader, LevelResult
from worker.harness.results.requests import RequestRecord

RESULT_SCHEMA_VERSION: Literal[2] = 2
READABLE_SCHEMA_VERSIONS = (1, 2)


class MemorySnapshot(StrictModel):
    """GPU memory where there is a GPU (summed over visible devices), else process RSS."""

    kind: Literal["gpu", "process_rss"]
    used_gib: NonNegFloat
    free_gib: NonNegFloat | None = None
    total_gib: NonNegFloat | None = None


class MemoryReport(StrictModel):
    before: MemorySnapshot | None = None
    after: MemorySnapshot | None = None
    peak_gib: NonNegFloat | None = Field(default=None, description="CUDA allocator or RSS high-water mark")
    peak_source: str | None = None


class GpuFacts(StrictModel):
    name: Annotated[str, Field(max_length=200)]
    memory_total_gib: float = Field(ge=0, le=1e6, allow_inf_nan=False)
    driver: Annotated[str, Field(max_length=100)] | None = None
    cuda: Annotated[str, Field(max_length=100)] | None = None


class HardwareFacts(StrictModel):
    hostname: Annotated[str, Field(max_length=255)]
    cpu_model: Annotated[str, Field(max_length=200)]
    cpu_cores: int = Field(ge=1, le=1_000_000)
    memory_gib: float = Field(ge=0, le=1e9, allow_inf_nan=False)
    gpus: list[GpuFacts] = Field(default_factory=list, max_length=256)


class EngineInfo(StrictModel):
    kind: Literal["openai", "managed", "transformers"]
    server: str | None = Field(default=None, description="vllm | sglang | tgi | llamacpp | generic")
    base_url: str | None = None
    model: str
    api: Literal["completions", "chat"] | None = None
    version: str | None = None
    command: list[str] | None = Field(default=None, description="the exact argv, for a managed engine")
    method: dict[str, Any] = Field(default_factory=dict, description="speculation settings in use")
    device: str | None = None


class WorkloadInfo(StrictModel):
    name: str
    version: str | None = None
    prompts: int = Field(ge=1, description="requests in the workload (every turn of every conversation)")
    repeated_prompts: bool = False
    digest: str | None = Field(default=None, description="sha256 of a registered workload's canonical form")
    conversations: int | None = Field(default=None, ge=1, description="multi-turn workloads: conversations")


class Sampling(StrictModel):
    temperature: float = Field(default=0.0, ge=0)
    top_p: float = Field(default=1.0, gt=0, le=1)

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


class BenchHeader(StrictModel):
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
