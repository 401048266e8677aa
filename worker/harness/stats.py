"""Aggregation of per-request records into per-level figures.

Pure Python on purpose: ``results.py`` re-runs these to check an uploaded result's
aggregates against its own requests, and the control plane may have only pydantic.
Quantiles use linear interpolation between order statistics (numpy's default), so the
numbers match what anyone recomputes with ``numpy.percentile``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of already-sorted values, linear interpolation."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def summarize(values: Sequence[float]) -> dict[str, float] | None:
    """``{mean, p50, p90, p95, p99}`` of the values, or None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return {
        "mean": math.fsum(ordered) / len(ordered),
        "p50": quantile(ordered, 0.50),
        "p90": quantile(ordered, 0.90),
        "p95": quantile(ordered, 0.95),
        "p99": quantile(ordered, 0.99),
    }


def tpot_ms(ttft_ms: float, e2e_ms: float, output_tokens: int) -> float | None:
    """Time per output token after the first: (E2E - TTFT) / (tokens - 1).

    This is per token whatever the chunking: under speculation one chunk carries several
    tokens, and the per-chunk gap (reported separately) is not a per-token figure.
    """
    if output_tokens < 2:
        return None
    return (e2e_ms - ttft_ms) / (output_tokens - 1)
