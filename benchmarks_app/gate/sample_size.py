"""How many requests per arm a rule's quantile needs before the gate may say Pass or Fail.

The gate's interval is equal-tailed, each side at the test's one-sided confidence (a 95%
rule shows a 90% interval, result.CheckResult). The distribution-free analogue of that
interval for the p-quantile of n requests is a pair of order statistics [X_(r), X_(s)]
with P(B < r) ≤ α and P(B ≥ s) ≤ α for B ~ Binomial(n, p), the number of requests below
the true quantile. Such a pair exists only when even the widest one, [X_(1), X_(n)], holds:
P(B = 0) = (1-p)^n ≤ α and P(B = n) = p^n ≤ α. Below that n, no order statistic bounds the
quantile at the stated confidence, so no resampling scheme can honestly do better (the
bootstrap's interval is then narrower than the data allow): the verdict is Marginal with
the number needed. At α = 0.05 that is 5 requests for a median, 29 for p90, 59 for p95,
299 for p99 — computed here, not tabulated.

Throughput metrics (ratios of means) have no such bound: the gate's `min_samples` holds them.
"""

from __future__ import annotations

import math

from benchmarks_app.gate.metrics import METRICS

_MAX_N = 10_000_000


def requests_needed(q: float, confidence: float) -> int:
    """The smallest n for which the order statistics of n samples bound the q-quantile on
    both sides at one-sided `confidence` (see the module docstring)."""
    if not 0 < q < 1:
        raise ValueError("q must be in (0, 1)")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    alpha = 1 - confidence
    worst = max(q, 1 - q)
    # Closed form first, then checked (and nudged) on the exact condition, so that float
    # rounding of the logarithms never decides an integer.
    n = max(1, math.ceil(math.log(alpha) / math.log(worst)))
    while n > 1 and worst ** (n - 1) <= alpha:
        n -= 1
    while worst**n > alpha:
        n += 1
        if n > _MAX_N:
            raise ValueError("no sample size bounds this quantile")
    return n


def requests_needed_for(metric: str, confidence: float) -> int | None:
    """Requests per arm a metric needs at a rule's confidence; None for throughputs."""
    q = METRICS[metric].quantile
    return None if q is None else requests_needed(q, confidence)
