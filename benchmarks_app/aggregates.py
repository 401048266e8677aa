"""What a run stores per level when its results land, so that pages never read raw samples.

`aggregate_level(requests, level)` turns one level of the harness's result (its per-request
records, plus the level's own scalars) into a small JSON document (≈3-5 kB):

    {"schema": 1, "level_kind": "concurrency", "level": 4.0,
     "requests": 64, "errors": 1,
     "metrics": {"ttft_ms" | "tpot_ms" | "e2e_ms" | "itl_chunk_ms" | "tokens_per_chunk":
                   {"count", "min", "max", "mean",
                    "quantiles": [q(0.01), q(0.02), …, q(0.99)],      # QUANTILE_PROBS
                    "histogram": {"log10_lo", "log10_hi", "counts": [...], "zeros": n}}},
     "scalars": {"output_tokens_per_s", "requests_per_s", "acceptance_rate",
                 "mean_acceptance_length", "peak_gib", "headroom_gib"}}   # None: not reported

Quantiles are numpy's default (linear) at 1%..99% in 1% steps, so p50/p90/p95/p99 are
stored exactly; min and max close the ECDF. The histogram has `HIST_BINS` log-spaced bins
between min and max of the positive values (`zeros` counts exact zeros, which a log axis
can't show). Values keep 4 significant digits. A metric with no samples is `{"count": 0}`.
Failed requests (`error` set) count in `errors` and contribute no samples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchmarks_app.gate.adapter import level_of
from benchmarks_app.gate.inputs import FloatArray, as_samples

SCHEMA = 1
QUANTILE_PROBS: tuple[float, ...] = tuple(round(p / 100, 2) for p in range(1, 100))
HIST_BINS = 24
METRICS = ("ttft_ms", "tpot_ms", "e2e_ms", "itl_chunk_ms", "tokens_per_chunk")
_PER_REQUEST = {"ttft_ms": "ttft_ms", "tpot_ms": "tpot_ms", "e2e_ms": "e2e_ms"}
_PER_CHUNK = {"itl_chunk_ms": "itl_chunk_ms", "tokens_per_chunk": "chunk_tokens"}


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


def level_scalars(level: Mapping[str, Any]) -> dict[str, float | None]:
    """The level's own numbers from the harness; speculation "not reported" stays None."""
    spec = level.get("speculation")
    spec = spec if isinstance(spec, Mapping) else {}
    memory = level.get("memory")
    memory = memory if isinstance(memory, Mapping) else {}
    return {
        "output_tokens_per_s": _number(level.get("output_tokens_per_s")),
        "requests_per_s": _number(level.get("requests_per_s")),
        "acceptance_rate": _number(spec.get("acceptance_rate")),
        "mean_acceptance_length": _number(spec.get("mean_acceptance_length")),
        "peak_gib": _number(memory.get("peak_gib")),
        "headroom_gib": _number(memory.get("headroom_gib")),
    }


def aggregate_level(
    requests: Sequence[Mapping[str, Any]], level: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Aggregate one level. `level` is the harness's level entry (for its `concurrency` or
    `rate` and its scalars); without it the result has no level and empty scalars."""
    ok = [r for r in requests if not r.get("error")]
    metrics: dict[str, Any] = {}
    for name, key in _PER_REQUEST.items():
        metrics[name] = sketch(as_samples([r.get(key) for r in ok]))
    for name, key in _PER_CHUNK.items():
        metrics[name] = sketch(as_samples([v for r in ok for v in (r.get(key) or [])]))
    out: dict[str, Any] = {"schema": SCHEMA, "requests": len(requests), "errors": len(requests) - len(ok)}
    if level is not None:
        out["level_kind"], out["level"] = level_of(level)
    out["metrics"] = metrics
    out["scalars"] = level_scalars(level or {})
    return out


def aggregate_result(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Aggregates of every level of one arm's harness result, in its order."""
    return [aggregate_level(level.get("requests") or [], level) for level in result.get("levels") or []]
