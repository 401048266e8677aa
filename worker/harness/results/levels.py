"""A load level: its aggregates (checked against its requests), SLO and speculation."""

from __future__ import annotations

from pydantic import Field, model_validator

from worker.harness.results.bounds import (
    MAX_REQUESTS,
    MAX_TOKENS,
    Count,
    NonNegFloat,
    StrictModel,
    close,
)
from worker.harness.results.requests import RequestRecord
from worker.harness.results.speculation import Speculation, SpeculationNotReported
from worker.harness.tally import LevelTally


class Quantiles(StrictModel):
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


class TokensPerChunk(StrictModel):
    """Tokens per streamed chunk. ``p50``/``max`` are null where the engine doesn't say
    how many tokens each chunk carried (the mean is then total tokens / chunks)."""

    mean: NonNegFloat
    p50: NonNegFloat | None = None
    max: int | None = Field(default=None, ge=0)


class SLO(StrictModel):
    """Thresholds a request must meet to count towards goodput (all given ones)."""

    ttft_ms: float | None = Field(default=None, gt=0)
    tpot_ms: float | None = Field(default=None, gt=0)
    e2e_ms: float | None = Field(default=None, gt=0)

    def met_by(self, r: RequestRecord) -> bool:
        if r.error is not None:
            return False
        checks = ((self.ttft_ms, r.ttft_ms), (self.tpot_ms, r.tpot_ms), (self.e2e_ms, r.e2e_ms))
        return all(limit is None or (value is not None and value <= limit) for limit, value in checks)


class LevelHeader(StrictModel):
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
        if not close(self.error_rate, tally.failed / tally.requests if tally.requests else 0.0):
            return "error_rate is not errors / requests_total"
        if self.output_tokens != tally.output_tokens:
            return "output_tokens differs from the sum over successful requests"
        for name, value in tally.quantiles().items():
            got = getattr(self, name)
            got_dict = got.model_dump() if got is not None else None
            if (got_dict is None) != (value is None) or (
                got_dict is not None
                and value is not None
                and not all(close(got_dict[k], value[k]) for k in value)
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
