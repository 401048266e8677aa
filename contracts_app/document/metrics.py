"""The metric names the gate knows. Latencies are in milliseconds (lower is better);
throughputs are per second (higher is better)."""

from __future__ import annotations

_LATENCIES = ("ttft", "tpot", "itl_chunk", "e2e")
_QUANTILES = ("p50", "p90", "p95", "p99")

LATENCY_METRICS: frozenset[str] = frozenset(f"{m}_{q}" for m in _LATENCIES for q in _QUANTILES)
THROUGHPUT_METRICS: frozenset[str] = frozenset({"output_tokens_per_s", "requests_per_s"})
METRICS: frozenset[str] = LATENCY_METRICS | THROUGHPUT_METRICS


# A tail quantile's interval holds only with about this many requests beyond it (the gate's
# method notes: fewer, and it is too narrow). Same rule as `benchmarks_app.gate.metrics`.
TAIL_REQUESTS_BEYOND = 5
_QUANTILE_VALUES = {"p50": 0.50, "p90": 0.90, "p95": 0.95, "p99": 0.99}


def min_requests_for(metric: str) -> int | None:
    """Requests per level a tail quantile metric needs (p90 50, p95 100, p99 500); None for
    medians and throughputs."""
    if metric not in LATENCY_METRICS:
        return None
    q = _QUANTILE_VALUES[metric.rsplit("_", 1)[1]]
    return None if q <= 0.5 else round(TAIL_REQUESTS_BEYOND / (1 - q))


def lower_is_better(metric: str) -> bool:
    """True for latencies, False for throughputs; an unknown name is a programming error."""
    if metric in LATENCY_METRICS:
        return True
    if metric in THROUGHPUT_METRICS:
        return False
    raise KeyError(f"unknown metric {metric!r}; known: {', '.join(sorted(METRICS))}")
