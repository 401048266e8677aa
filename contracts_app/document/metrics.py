"""The metric names the gate knows. Latencies are in milliseconds (lower is better);
throughputs are per second (higher is better)."""

from __future__ import annotations

_LATENCIES = ("ttft", "tpot", "itl_chunk", "e2e")
_QUANTILES = ("p50", "p90", "p95", "p99")

LATENCY_METRICS: frozenset[str] = frozenset(f"{m}_{q}" for m in _LATENCIES for q in _QUANTILES)
THROUGHPUT_METRICS: frozenset[str] = frozenset({"output_tokens_per_s", "requests_per_s"})
METRICS: frozenset[str] = LATENCY_METRICS | THROUGHPUT_METRICS


def lower_is_better(metric: str) -> bool:
    """True for latencies, False for throughputs; an unknown name is a programming error."""
    if metric in LATENCY_METRICS:
        return True
    if metric in THROUGHPUT_METRICS:
        return False
    raise KeyError(f"unknown metric {metric!r}; known: {', '.join(sorted(METRICS))}")
