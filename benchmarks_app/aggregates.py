"""What a run stores per level when its results land, so that pages never read raw samples.

`aggregate_level(requests, level)` turns one level of the harness's result (its per-request
records, plus the level's own scalars) into a small JSON document (≈3-5 kB):

    {"schema": 1, "level_kind": "concurrency", "level": 4.0,
     "requests": 64, "errors": 1,
     "metrics": {"ttft_ms" | "tpot_ms" | "e2e_ms" | "itl_chunk_ms" | "tokens_per_chunk":
                   {"count", "min", "max", "mean",
                    "quantiles": [q(0.01), q(0.02), …, q(0.99)],      # QUANTILE_PROBS
                    "histogram": {"log10_lo", "log10_hi", "counts": [...], "zeros": n}}},
     "scalars": {"output_tokens_per_s", "requests_per_s", "goodput_requests_per_s",
                 "error_rate", "tokens_per_chunk_mean", "acceptance_rate",
                 "mean_acceptance_length", "acceptance_by_position": [rate, …],
                 "peak_gib", "headroom_gib",
                 "memory_scope": "level" | "run" | None}}            # None: not reported

`acceptance_by_position` is accepted / drafts at each draft position (first position
first), where the engine counted per position (vLLM, llama-server); added to schema 1
additively, so aggregates stored before it read as "not reported".

Quantiles are numpy's default (linear) at 1%..99% in 1% steps, so p50/p90/p95/p99 are
stored exactly; min and max close the ECDF. The histogram has `HIST_BINS` log-spaced bins
between min and max of the positive values (`zeros` counts exact zeros, which a log axis
can't show). Values keep 4 significant digits. A metric with no samples is `{"count": 0}`.
Failed requests (`error` set) count in `errors` and contribute no samples. Inter-chunk
gaps come from each request's offsets (`chunk_offsets_us`, result schema 2, or
`chunk_offsets_ms`, schema 1; or `itl_chunk_ms` where given). Requests are read one at a
time into flat arrays, so a level of 100,000 requests costs 8 bytes a sample. The
harness reports memory once per run; `aggregate_result` copies it into every level with
`memory_scope: "run"` (a level's own `memory` wins, scope "level").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchmarks_app.gate.adapter import chunk_gaps, level_of
from benchmarks_app.gate.inputs import FloatArray, as_samples

SCHEMA = 1
QUANTILE_PROBS: tuple[float, ...] = tuple(round(p / 100, 2) for p in range(1, 100))
HIST_BINS = 24
METRICS = ("ttft_ms", "tpot_ms", "e2e_ms", "itl_chunk_ms", "tokens_per_chunk")
_PER_REQUEST = {"ttft_ms": "ttft_ms", "tpot_ms": "tpot_ms", "e2e_ms": "e2e_ms"}


def _round(x: float) -> float:
    return float(f"{x:.4g}")


def sketch(values: FloatArray) -> dict[str, Any]:
    """The quantile sketch and log histogram of one metric's samples."""
    n = len(values)
    if n == 0:
        return {"count": 0}
    out: dict[str, Any] = {
        "count": n,
        "min": _round(values.min()),
        "max": _round(values.max()),
        "mean": _round(values.mean()),
        "quantiles": [_round(v) for v in np.quantile(values, QUANTILE_PROBS)],
    }
    positive = values[values > 0]
    hist: dict[str, Any] = {"zeros": int(n - len(positive))}
    if len(positive):
        lo, hi = np.log10(positive.min()), np.log10(positive.max())
        hi = hi if hi > lo else lo + 1e-6  # one distinct value: a single narrow bin
        counts, _ = np.histogram(np.log10(positive), bins=HIST_BINS, range=(lo, hi))
        hist.update({"log10_lo": _round(lo), "log10_hi": _round(hi), "counts": counts.tolist()})
    out["histogram"] = hist
    return out


def sketch_quantile(metric_sketch: Mapping[str, Any], p: float) -> float | None:
    """A quantile read back from a sketch (linear between stored points; min/max at 0/1)."""
    if not metric_sketch.get("count"):
        return None
    xs = [0.0, *QUANTILE_PROBS, 1.0]
    ys = [metric_sketch["min"], *metric_sketch["quantiles"], metric_sketch["max"]]
    return float(np.interp(p, xs, ys))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
        return None
    return _round(float(value))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _acceptance_by_position(spec: Mapping[str, Any]) -> list[float] | None:
    """Accepted / drafts per draft position, from the exact counts (rounded only after)."""
    per_position, drafts = spec.get("accepted_per_position"), spec.get("drafts")
    counts = per_position if isinstance(per_position, list) else []
    if not counts or _number(drafts) is None or not drafts or any(_number(n) is None for n in counts):
        return None
    return [_round(n / drafts) for n in counts]


def level_scalars(level: Mapping[str, Any], run_memory: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The level's own numbers from the harness; speculation "not reported" stays None."""
    spec = _mapping(level.get("speculation"))
    memory, scope = _mapping(level.get("memory")), "level"
    if not memory and run_memory:
        memory, scope = run_memory, "run"
    peak, headroom = _number(memory.get("peak_gib")), _number(memory.get("headroom_gib"))
    return {
        "output_tokens_per_s": _number(level.get("output_tokens_per_s")),
        "requests_per_s": _number(level.get("requests_per_s")),
        "goodput_requests_per_s": _number(level.get("goodput_requests_per_s")),
        "error_rate": _number(level.get("error_rate")),
        "tokens_per_chunk_mean": _number(_mapping(level.get("tokens_per_chunk")).get("mean")),
        "acceptance_rate": _number(spec.get("acceptance_rate")),
        "mean_acceptance_length": _number(spec.get("mean_acceptance_length")),
        "acceptance_by_position": _acceptance_by_position(spec),
        "peak_gib": peak,
        "headroom_gib": headroom,
        "memory_scope": scope if peak is not None or headroom is not None else None,
    }


def aggregate_level(
    requests: Sequence[Mapping[str, Any]],
    level: Mapping[str, Any] | None = None,
    *,
    run_memory: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Aggregate one level. `level` is the harness's level entry (for its `concurrency` or
    `rate` and its scalars); without it the result has no level and empty scalars.
    `run_memory` (`{"peak_gib", "headroom_gib"}`) stands in for a level without its own."""
    scalars: dict[str, list[Any]] = {name: [] for name in _PER_REQUEST}
    gaps: list[FloatArray] = []
    chunk_tokens: list[FloatArray] = []
    failed = 0
    for r in requests:
        if r.get("error"):
            failed += 1
            continue
        for name, key in _PER_REQUEST.items():
            scalars[name].append(r.get(key))
        gaps.append(chunk_gaps(r))
        if r.get("chunk_tokens"):
            chunk_tokens.append(as_samples(r["chunk_tokens"]))
    metrics: dict[str, Any] = {name: sketch(as_samples(values)) for name, values in scalars.items()}
    metrics["itl_chunk_ms"] = sketch(as_samples(np.concatenate(gaps) if gaps else None))
    metrics["tokens_per_chunk"] = sketch(as_samples(np.concatenate(chunk_tokens) if chunk_tokens else None))
    out: dict[str, Any] = {"schema": SCHEMA, "requests": len(requests), "errors": failed}
    if level is not None:
        out["level_kind"], out["level"] = level_of(level)
    out["metrics"] = metrics
    out["scalars"] = level_scalars(level or {}, run_memory)
    return out


def aggregate_result(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Aggregates of every level of one arm's harness result, in its order."""
    run_memory = {
        "peak_gib": _mapping(result.get("memory")).get("peak_gib"),
        "headroom_gib": result.get("headroom_gib"),
    }
    return [
        aggregate_level(level.get("requests") or [], level, run_memory=run_memory)
        for level in result.get("levels") or []
    ]
