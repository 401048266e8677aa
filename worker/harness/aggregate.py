"""Per-level figures from per-request records (the same tally ``results.py`` checks with)."""

from __future__ import annotations

from worker.harness.results.levels import SLO, LevelResult, Quantiles, TokensPerChunk
from worker.harness.results.requests import RequestRecord
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported
from worker.harness.tally import LevelTally


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
    # Schema 2 records (whole-microsecond offsets) first: the level's figures are computed
    # from exactly what is uploaded, so the control plane's re-check gets the same numbers.
    records = [r.compact() for r in records]
    tally = LevelTally(slo)
    for r in records:
        tally.add(r)
    quantiles = {k: (Quantiles(**v) if v is not None else None) for k, v in tally.quantiles().items()}
    tpc = tally.tokens_per_chunk()
    per_s = (lambda n: n / duration_s) if duration_s > 0 else (lambda n: 0.0)
    return LevelResult(
        concurrency=int(value) if kind == "concurrency" else None,
        rate=float(value) if kind == "rate" else None,
        duration_s=duration_s,
        requests_total=tally.requests,
        completed=tally.completed,
        errors=tally.failed,
        error_rate=tally.failed / tally.requests if tally.requests else 0.0,
        truncated=truncated,
        ttft_ms=quantiles["ttft_ms"],
        tpot_ms=quantiles["tpot_ms"],
        itl_chunk_ms=quantiles["itl_chunk_ms"],
        e2e_ms=quantiles["e2e_ms"],
        tokens_per_chunk=TokensPerChunk(**tpc) if tpc is not None else None,
        output_tokens=tally.output_tokens,
        output_tokens_per_s=per_s(tally.output_tokens),
        requests_per_s=per_s(tally.completed),
        goodput_requests_per_s=per_s(tally.met_slo) if slo is not None else None,
        max_send_lag_ms=tally.max_send_lag_ms,
        speculation=speculation,
        requests=records,
    )
