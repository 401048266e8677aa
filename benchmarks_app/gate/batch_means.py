"""The throughput ratio's interval: batch means with Student's t, not a percentile bootstrap.

A throughput figure is a ratio of means (tokens over E2E time, summed over an arm's
requests). Its percentile bootstrap interval is too narrow at the sizes a gate sees:
measured by benchmarks/gate_calibration.py at 64 requests per arm, a change that does
nothing passed the `improve output_tokens_per_s` rule on 6.1% of independent A/A pairs
and 7.7-9.2% on a drifting AR(1) host (nominal 5%, bound 7.3% over 1,000 pairs), with
block resampling or without it. Batch means (Schmeiser 1982) handle both causes at once:
the arm's requests, in run order, are cut into at most `BATCHES` consecutive batches; the
batches' totals are nearly independent even when successive requests are not, and with
few of them Student's t (not the normal) gives the honest width. The ratio's standard
error is the delta method's over the batch totals, on the log scale; the two arms'
errors combine by Welch-Satterthwaite.

The gate reads intervals from draws (`Estimate.interval`), so the interval is handed over
as draws of t: `n_boot` quantiles of the fitted t distribution, evenly spaced, so its
quantiles are the t interval's to within the grid (no Monte Carlo noise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from benchmarks_app.gate.inputs import FloatArray

# Few enough batches that each spans the host's memory at the sizes a gate sees (8
# requests per batch at 64 per arm), enough that t's tails are not absurd (7 df).
BATCHES = 8


@dataclass(frozen=True)
class LogRatioError:
    """The standard error of log(mean(num)/mean(den)) and its degrees of freedom."""

    se: float
    df: float
    batches: int


def log_ratio_error(num: FloatArray, den: FloatArray) -> LogRatioError | None:
    """Delta-method standard error of the log ratio of means over consecutive batches;
    None when it can't be estimated (fewer than 2 requests, or a zero denominator)."""
    n = len(num)
    k = min(BATCHES, n)
    if k < 2:
        return None
    sums_n = np.array([part.sum() for part in np.array_split(num, k)])
    sums_d = np.array([part.sum() for part in np.array_split(den, k)])
    ratio = sums_n.sum() / sums_d.sum()
    if not (np.isfinite(ratio) and ratio > 0):
        return None
    # Batches of unequal size (n not a multiple of k) weigh by their totals, as the ratio does.
    resid = (sums_n - ratio * sums_d) / (sums_d.sum() / k)
    var_ratio = float(resid @ resid) / (k - 1) / k
    return LogRatioError(math.sqrt(var_ratio) / ratio, k - 1, k)


def welch(a: LogRatioError, b: LogRatioError) -> tuple[float, float]:
    """The combined standard error and Welch-Satterthwaite degrees of freedom."""
    var = a.se**2 + b.se**2
    denom = (a.se**4 / a.df if a.df > 0 else 0.0) + (b.se**4 / b.df if b.df > 0 else 0.0)
    df = var**2 / denom if denom > 0 else float(min(a.df, b.df))
    return math.sqrt(var), max(1.0, df)


def t_draws(log_estimate: float, se: float, df: float, n_boot: int) -> FloatArray:
    """`n_boot` evenly spaced quantiles of exp(log_estimate + se * t_df)."""
    p = (np.arange(n_boot) + 0.5) / n_boot
    return np.exp(log_estimate + se * stats.t.ppf(p, df))
