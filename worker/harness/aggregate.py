"""Per-level figures from per-request records (the same rules ``results.py`` checks)."""

from __future__ import annotations

import statistics

from worker.harness.results import (
    SLO,
    LevelResult,
    Quantiles,
    RequestRecord,
    SpeculationNotReported,
    SpeculationReported,
    TokensPerChunk,
    level_quantiles,
)


def tokens_per_chunk(ok: list[RequestRecord]) -> TokensPerChunk | None:
    counts = [n for r in ok if r.chunk_tokens is not None for n in r.chunk_tokens]
    if ok and all(r.chunk_tokens is not None for r in ok):
        return TokensPerChunk(mean=statistics.fmean(counts), p50=statistics.median(counts), max=max(counts))
    chunks = sum(len(r.chunk_offsets_ms) for r in ok)
    if not chunks:
        return None
    # Some responses didn't say how many tokens each chunk carried: only the mean is known.
    return TokensPerChunk(mean=sum(r.output_tokens for r in ok) / chunks)


def build_level(
    *,
    kind: str,
    value: float,
    records: list[RequestRecord],
    duration_s: float,
    speculation: SpeculationReported | SpeculationNotReported,
    slo: SLO | None,
    truncated: bool,
) -> LevelResult:
    ok = [r for r in records if r.error is None]
    quantiles = {k: (Quantiles(**v) if v is not None else None) for k, v in level_quantiles(ok).items()}
    out_tokens = sum(r.output_tokens for r in ok)
    lags = [
        (r.send_s - r.scheduled_s) * 1000.0
        for r in records
        if r.scheduled_s is not None and r.send_s >= r.scheduled_s
    ]
    per_s = (lambda n: n / duration_s) if duration_s > 0 else (lambda n: 0.0)
    return LevelResult(
        concurrency=int(value) if kind == "concurrency" else None,
        rate=float(value) if kind == "rate" else None,
        duration_s=duration_s,
        requests_total=len(records),
        completed=len(ok),
        errors=len(records) - len(ok),
        error_rate=(len(records) - len(ok)) / len(records) if records else 0.0,
        truncated=truncated,
        ttft_ms=quantiles["ttft_ms"],
        tpot_ms=quantiles["tpot_ms"],
        itl_chunk_ms=quantiles["itl_chunk_ms"],
        e2e_ms=quantiles["e2e_ms"],
        tokens_per_chunk=tokens_per_chunk(ok),
        output_tokens=out_tokens,
        output_tokens_per_s=per_s(out_tokens),
        requests_per_s=per_s(len(ok)),
        goodput_requests_per_s=per_s(sum(1 for r in ok if slo.met_by(r))) if slo is not None else None,
        max_send_lag_ms=max(lags) if lags else None,
        speculation=speculation,
        requests=records,
    )
