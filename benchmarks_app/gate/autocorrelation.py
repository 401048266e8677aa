"""Serial dependence between successive requests of one arm, and the block bootstrap it calls for.

The independent bootstrap (bootstrap.py) treats an arm's requests as exchangeable. On a
real server they often are not: a cache filling, a neighbour's load, a thermal ramp make
successive requests alike, and positively correlated samples carry less information than
their count says, so an independent bootstrap's interval is too narrow.

`resampling_plan` estimates the lag-1 autocorrelation of an arm's samples in the order the
requests were sent (Spearman's, on ranks, so one straggler doesn't decide it) and tests it
against independence (Bartlett: under independence r1 is about N(0, 1/n); two-sided at
`AUTOCORRELATION_ALPHA`); the result is reported. Every arm of at least
`MIN_SAMPLES_FOR_BLOCKS` requests is resampled by a circular block bootstrap (Politis &
Romano 1992), significant or not (dependence spread over many lags escapes a lag-1 test at
these sizes: see `resampling_plan`), with blocks of at least n^(1/3), longer where the
length chosen from the data by Politis & White (2004, with Patton, Politis & White's 2009
correction) says so. Smaller arms keep the exact independent bootstrap.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from benchmarks_app.gate.inputs import FloatArray

AUTOCORRELATION_ALPHA = 0.05
# Below this many samples a lag-1 estimate is too noisy to act on (its standard error is
# 1/sqrt(n): 0.18 at 30), and a circular block resample of so few has only a handful of
# distinct blocks; the minimum-requests rule (sample_size.py) guards small samples instead.
MIN_SAMPLES_FOR_BLOCKS = 30
_Z = NormalDist().inv_cdf(1 - AUTOCORRELATION_ALPHA / 2)
# Index matrices are built in pieces of at most this many entries (memory, not speed).
_CHUNK = 4_000_000


@dataclass(frozen=True)
class Resampling:
    """How one arm's samples are resampled: `block` 1 is the independent bootstrap."""

    lag1: float | None
    significant: bool
    block: int

    @property
    def blocked(self) -> bool:
        return self.block > 1

    def describe(self) -> str:
        r = "n/a" if self.lag1 is None else f"{self.lag1:+.2f}"
        if self.blocked:
            return (
                f"circular block bootstrap, blocks of {self.block} (lag-1 autocorrelation {r}, "
                f"{'significant' if self.significant else 'not significant'})"
            )
        said = "significant" if self.significant else "not significant"
        few = f"fewer than {MIN_SAMPLES_FOR_BLOCKS} requests"
        return f"independent bootstrap (lag-1 autocorrelation {r}, {said}; {few})"


def lag1_autocorrelation(x: FloatArray) -> float | None:
    """Spearman's lag-1 autocorrelation of x in its given order; None when undefined.
    Ties are ranked in order of appearance (measured latencies rarely tie; the gate runs
    this per arm and metric, so it stays a pair of sorts)."""
    n = len(x)
    if n < 3:
        return None
    ranks = np.empty(n)
    ranks[np.argsort(x, kind="stable")] = np.arange(n)
    a, b = ranks[:-1] - ranks[:-1].mean(), ranks[1:] - ranks[1:].mean()
    denom = math.sqrt(float(a @ a) * float(b @ b))
    return float(a @ b) / denom if denom > 0 else None


def resampling_plan(x: FloatArray) -> Resampling:
    n = len(x)
    r1 = lag1_autocorrelation(x)
    if r1 is None:
        return Resampling(r1, False, 1)
    significant = abs(r1) * math.sqrt(n) > _Z
    if n < MIN_SAMPLES_FOR_BLOCKS:
        return Resampling(r1, significant, 1)
    # Every arm large enough is block-resampled, significant lag 1 or not: weak dependence
    # spread over many lags (r1 ~0.1, the variance of the mean ~1.6x) escapes a lag-1 test
    # at 64 requests and let the TPOT p50 rule pass 7.6% of A/A pairs on a drifting AR(1)
    # host (benchmarks/gate_calibration.py); blocks of at least n^(1/3) bring it to 6.9%.
    return Resampling(r1, significant, max(max(1, round(n ** (1 / 3))), block_length(x)))


def block_length(x: FloatArray) -> int:
    """Politis-White's automatic block length for the circular block bootstrap
    (flat-top lag window; the 2009 correction's constant D_CB = 4/3 g²), capped at n/3."""
    n = len(x)
    fallback = max(1, round(n ** (1 / 3)))
    cap = max(1, n // 3)
    e = x - x.mean()
    var = float(e @ e) / n
    if n < 8 or var <= 0:
        return min(fallback, cap)
    k_n = max(5, int(math.sqrt(math.log10(n))))
    m_max = math.ceil(math.sqrt(n)) + k_n
    m_max = min(m_max, n - 1)
    acov = np.array([float(e[k:] @ e[: n - k]) / n for k in range(m_max + 1)])
    rho = acov[1:] / acov[0]
    significant = np.abs(rho) > 2 * math.sqrt(math.log10(n) / n)
    # m̂: the first lag after which k_n successive autocorrelations are all insignificant.
    m_hat = None
    for m in range(len(rho) - k_n + 1):
        if not significant[m : m + k_n].any():
            m_hat = m  # lags 1..m were the significant stretch
            break
    if m_hat is None:
        m_hat = len(rho)
    big_m = min(max(2 * m_hat, 1), m_max)
    lags = np.arange(-big_m, big_m + 1)
    ratio = np.abs(lags) / big_m
    window = np.where(ratio <= 0.5, 1.0, 2.0 * (1.0 - ratio))
    r = acov[np.abs(lags)]
    g = float(np.sum(window * r))
    big_g = float(np.sum(window * np.abs(lags) * r))
    d_cb = (4.0 / 3.0) * g * g
    if d_cb <= 0 or big_g == 0:
        return min(fallback, cap)
    b = (2.0 * big_g * big_g / d_cb) ** (1 / 3) * n ** (1 / 3)
    return int(min(max(1, round(b)), cap))


def _block_index_chunks(n: int, block: int, n_boot: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Index matrices (rows: replicates) of circular block resamples of 0..n-1."""
    blocks = -(-n // block)
    offsets = np.arange(block)
    rows = max(1, _CHUNK // max(n, 1))
    done = 0
    while done < n_boot:
        m = min(rows, n_boot - done)
        starts = rng.integers(0, n, size=(m, blocks))
        idx = (starts[:, :, None] + offsets) % n
        yield idx.reshape(m, blocks * block)[:, :n]
        done += m


def block_bootstrap_quantile(
    x: FloatArray, q: float, block: int, n_boot: int, rng: np.random.Generator
) -> FloatArray:
    """`n_boot` circular-block-bootstrap draws of numpy's default quantile of x."""
    parts = [np.quantile(x[idx], q, axis=1) for idx in _block_index_chunks(len(x), block, n_boot, rng)]
    return np.concatenate(parts)
