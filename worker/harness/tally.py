"""A level's figures, tallied one request at a time.

The harness builds a level's aggregates with it and the control plane re-checks an
uploaded level with it, so both compute the same numbers the same way. Nothing here keeps
a request: per-request values go into flat arrays (8 bytes a number), so a level of
100,000 requests is tallied in bounded memory without a list of records.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from worker.harness.results.levels import SLO
    from worker.harness.results.requests import RequestRecord

QUANTILE_KEYS = ("p50", "p90", "p95", "p99")
_QUANTILES = (0.50, 0.90, 0.95, 0.99)


def summarize_array(values: np.ndarray[Any, Any]) -> dict[str, float] | None:
    """``{mean, p50, p90, p95, p99}``, linear interpolation between order statistics
    (numpy's default, and ``worker.harness.stats.quantile``'s formula)."""
    n = len(values)
    if n == 0:
        return None
    ordered = np.sort(values)
    out = {"mean": float(ordered.sum() / n)}
    for key, q in zip(QUANTILE_KEYS, _QUANTILES, strict=True):
        pos = (n - 1) * q
        lo = int(np.floor(pos))
        hi = min(lo + 1, n - 1)
        out[key] = float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
    return out


class LevelTally:
    """Counts and samples of one level, fed with `add(record)`."""

    def __init__(self, slo: SLO | None = None) -> None:
        self.slo = slo
        self.requests = 0
        self.failed = 0
        self.output_tokens = 0
        self.chunks = 0
        self.met_slo = 0
        self.max_send_lag_ms: float | None = None
        self.every_chunk_counted = True
        self._ttft = array("d")
        self._tpot = array("d")
        self._e2e = array("d")
        self._gaps: list[np.ndarray[Any, Any]] = []
        self._chunk_tokens: list[np.ndarray[Any, Any]] = []

    @property
    def completed(self) -> int:
        return self.requests - self.failed

    def add(self, r: RequestRecord) -> None:
        self.requests += 1
        if r.scheduled_s is not None and r.send_s >= r.scheduled_s:
            lag = (r.send_s - r.scheduled_s) * 1000.0
            self.max_send_lag_ms = lag if self.max_send_lag_ms is None else max(self.max_send_lag_ms, lag)
        if r.error is not None:
            self.failed += 1
            return
        self.output_tokens += r.output_tokens
        for column, value in ((self._ttft, r.ttft_ms), (self._tpot, r.tpot_ms), (self._e2e, r.e2e_ms)):
            if value is not None:
                column.append(value)
        offsets = r.offsets_ms()
        self.chunks += len(offsets)
        if len(offsets) > 1:
            self._gaps.append(np.diff(offsets))
        if r.chunk_tokens is None:
            self.every_chunk_counted = False
        else:
            self._chunk_tokens.append(np.asarray(r.chunk_tokens, dtype=np.int64))
        if self.slo is not None and self.slo.met_by(r):
            self.met_slo += 1

    def quantiles(self) -> dict[str, dict[str, float] | None]:
        """The latency quantiles a level must carry."""
        gaps = np.concatenate(self._gaps) if self._gaps else np.empty(0)
        return {
            "ttft_ms": summarize_array(np.frombuffer(self._ttft, dtype=np.float64)),
            "tpot_ms": summarize_array(np.frombuffer(self._tpot, dtype=np.float64)),
            "e2e_ms": summarize_array(np.frombuffer(self._e2e, dtype=np.float64)),
            "itl_chunk_ms": summarize_array(gaps),
        }

    def tokens_per_chunk(self) -> dict[str, Any] | None:
        if self.completed and self.every_chunk_counted:
            counts = np.concatenate(self._chunk_tokens)
            return {"mean": float(counts.mean()), "p50": float(np.median(counts)), "max": int(counts.max())}
        if not self.chunks:
            return None
        # Some responses didn't say how many tokens each chunk carried: only the mean is known.
        return {"mean": self.output_tokens / self.chunks}
