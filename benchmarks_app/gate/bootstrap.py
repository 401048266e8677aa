"""Bootstrap distributions of quantiles and of throughput, vectorised.

Quantiles (the exact order-statistic bootstrap)
-----------------------------------------------
A bootstrap resample of x (size n, drawn with replacement) is x_(ceil(n·U_i)) for n
independent uniforms U_i, where x_(1) ≤ … ≤ x_(n) is the sorted sample; the map u ↦
x_(ceil(n·u)) is non-decreasing, so the resample's k-th order statistic is
x_(ceil(n·U_(k))) with U_(k) the k-th order statistic of n uniforms, which is
Beta(k, n-k+1). The next one follows from U_(k+1) = U_(k) + (1-U_(k))·Beta(1, n-k) (the
smallest of the n-k uniforms above U_(k)). So the bootstrap distribution of numpy's default
("linear", type 7) quantile, (1-g)·X*_(k) + g·X*_(k+1), is sampled *exactly* from two beta
draws per replicate after one sort: O(n log n + n_boot) instead of O(n·n_boot), with no
approximation. `tests/benchmarks/gate/test_bootstrap.py` checks it against brute-force resampling.

Throughput (ratio of means)
---------------------------
`output_tokens_per_s` and `requests_per_s` are level scalars, not per-request samples. The
gate estimates them with Little's law: in a closed loop at concurrency C, output tokens/s =
C·mean(tokens)/mean(E2E) and requests/s = C/mean(E2E); C is the same in both arms, so the
candidate/baseline ratio is a ratio of per-request means; its interval is batch means with
Student's t (batch_means.py), which a percentile bootstrap of the ratio was measured to be
too narrow against. At an open-loop rate level the same estimator measures per-stream
service speed, not the achieved throughput (which the arrival rate fixes).
"""

from __future__ import annotations

import zlib

import numpy as np

from benchmarks_app.gate.inputs import FloatArray


def rng_for(seed: int, *key: object) -> np.random.Generator:
    """A generator for one (arm, lane, level, metric): deterministic for the seed, and
    independent of which other rules are evaluated (adding a rule never moves another's CI)."""
    words = [zlib.crc32(str(part).encode()) for part in key]
    return np.random.default_rng(np.random.SeedSequence([seed & 0xFFFFFFFF, *words]))


def quantile(x: FloatArray, q: float) -> float:
    """numpy's default (linear interpolation) quantile; the bootstrap below matches it."""
    return float(np.quantile(x, q))


def bootstrap_quantile(x: FloatArray, q: float, n_boot: int, rng: np.random.Generator) -> FloatArray:
    """`n_boot` draws from the exact bootstrap distribution of the sample q-quantile of x."""
    n = len(x)
    if n == 0:
        raise ValueError("no samples")
    h = (n - 1) * q
    k0 = int(np.floor(h))  # 0-based index of the lower order statistic
    g = h - k0
    k = k0 + 1  # its 1-based rank
    u_k = rng.beta(k, n - k + 1, size=n_boot)
    idx_lo = _rank_to_index(u_k, n)
    if g == 0 or k >= n:
        return _order_stats(x, idx_lo)[0]
    u_next = u_k + (1.0 - u_k) * rng.beta(1, n - k, size=n_boot)
    idx_hi = _rank_to_index(u_next, n)
    lo, hi = _order_stats(x, idx_lo, idx_hi)
    # numpy's own interpolation formula, so that draws equal np.quantile of the resample
    # to the last bit (its branch at g ≥ 0.5 keeps the result exact near the upper point).
    return hi - (hi - lo) * (1.0 - g) if g >= 0.5 else lo + (hi - lo) * g


def _rank_to_index(u: FloatArray, n: int) -> np.ndarray:
    return np.clip(np.ceil(u * n).astype(np.int64) - 1, 0, n - 1)


def _order_stats(x: FloatArray, *index_arrays: np.ndarray) -> list[FloatArray]:
    """The requested order statistics of x. Only the band of ranks the draws touch is
    sorted (they cluster within a few standard errors of the quantile): a partition around
    the band's ends plus a sort of the band is O(n), cheaper than sorting all of x."""
    lo = min(int(a.min()) for a in index_arrays)
    hi = max(int(a.max()) for a in index_arrays)
    n = len(x)
    if hi - lo > n // 4:
        ordered = np.sort(x)
        return [ordered[a] for a in index_arrays]
    part = np.partition(x, (lo, hi))
    band = np.sort(part[lo : hi + 1])
    return [band[a - lo] for a in index_arrays]
