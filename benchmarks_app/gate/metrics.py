"""The metrics a contract's `measurement` rules may name, as the gate computes them.

Same names and directions as `contracts_app.document.metrics` (a test keeps them equal).
Not imported from there: that package imports `kernel.errors`, and `specpact/__init__.py`
loads the Celery app (and with it parts of Django), while the gate must stay pure.
This table adds what the gate needs per metric: its per-request sample, quantile, unit, label.
"""

from __future__ import annotations

from dataclasses import dataclass

# A tail quantile's bootstrap interval holds only with about this many requests beyond it
# (fewer, and it is too narrow): p90 needs ~50 requests, p95 ~100, p99 ~500. The contract
# validator warns by the same rule (`contracts_app.document.metrics.min_requests_for`; a
# test keeps the two equal).
TAIL_REQUESTS_BEYOND = 5

LATENCY_BASES = ("ttft", "tpot", "itl_chunk", "e2e")
QUANTILES = {"p50": 0.50, "p90": 0.90, "p95": 0.95, "p99": 0.99}

_LABELS = {"ttft": "TTFT", "tpot": "TPOT", "itl_chunk": "Inter-chunk latency", "e2e": "E2E latency"}


@dataclass(frozen=True)
class Metric:
    """One gate metric.

    `base` is the per-request sample it is computed from (`ttft`, `tpot`, `itl_chunk`,
    `e2e`) or the throughput name itself; `quantile` is None for throughput metrics.
    """

    name: str
    base: str
    quantile: float | None
    lower_is_better: bool
    unit: str
    label: str


def _build() -> dict[str, Metric]:
    table: dict[str, Metric] = {}
    for base in LATENCY_BASES:
        for suffix, q in QUANTILES.items():
            name = f"{base}_{suffix}"
            table[name] = Metric(name, base, q, True, "ms", f"{_LABELS[base]} {suffix}")
    table["output_tokens_per_s"] = Metric(
        "output_tokens_per_s", "output_tokens_per_s", None, False, "tokens/s", "Output tokens/s"
    )
    table["requests_per_s"] = Metric(
        "requests_per_s", "requests_per_s", None, False, "requests/s", "Requests/s"
    )
    return table


METRICS: dict[str, Metric] = _build()


def lower_is_better(name: str) -> bool:
    return METRICS[name].lower_is_better


def min_requests_for(name: str) -> int | None:
    """Requests per arm and level a tail quantile metric needs; None for medians and throughputs."""
    q = METRICS[name].quantile
    if q is None or q <= 0.5:
        return None
    return round(TAIL_REQUESTS_BEYOND / (1 - q))
