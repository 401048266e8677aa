"""How fast the gate is: one quantile-ratio CI on 2 x 100,000 samples, and a whole gate.

Run: `.venv/bin/python benchmarks/gate_speed.py` (prints medians of several runs).
Compares the exact order-statistic bootstrap with brute-force index resampling and with
`scipy.stats.bootstrap` (both far slower, so they run with fewer replicates; their
per-replicate cost is printed to compare like with like).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks_app.gate import ArmLevel, GateInput, GateRules, evaluate_gate
from benchmarks_app.gate.batch_means import log_ratio_error
from benchmarks_app.gate.bootstrap import bootstrap_quantile

N = 100_000


def timed(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(0)
    base = rng.lognormal(np.log(30), 0.4, N)
    cand = rng.lognormal(np.log(20), 0.4, N)
    print(f"numpy {np.__version__}; samples: 2 x {N:,} (lognormal); median of runs\n")

    for n_boot in (2_000, 10_000):

        def order_stat(n_boot: int = n_boot) -> np.ndarray:
            g = np.random.default_rng(1)
            r = bootstrap_quantile(base, 0.5, n_boot, g) / bootstrap_quantile(cand, 0.5, n_boot, g)
            return np.quantile(r, [0.05, 0.95])

        t = timed(order_stat, 9)
        print(f"order-statistic bootstrap, p50 ratio CI, n_boot={n_boot:>6,}: {t * 1e3:8.1f} ms")
    t99 = timed(lambda: bootstrap_quantile(base, 0.99, 10_000, np.random.default_rng(2)), 9)
    print(f"order-statistic bootstrap, one arm p99,    n_boot= 10,000: {t99 * 1e3:8.1f} ms")

    def brute(n_boot: int = 100) -> None:
        g = np.random.default_rng(1)
        for _ in range(n_boot // 10):
            ib, ic = g.integers(0, N, (10, N)), g.integers(0, N, (10, N))
            np.quantile(base[ib], 0.5, axis=1) / np.quantile(cand[ic], 0.5, axis=1)

    t = timed(brute, 3)
    print(
        f"brute-force index resampling,              n_boot=    100: {t * 1e3:8.1f} ms "
        f"(~{t / 100 * 2000:.1f} s for 2,000)"
    )

    def scipy_boot(n_boot: int = 100) -> None:
        def ratio(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
            return np.quantile(x, 0.5, axis=axis) / np.quantile(y, 0.5, axis=axis)

        stats.bootstrap(
            (base, cand),
            ratio,
            n_resamples=n_boot,
            batch=10,
            method="percentile",
            vectorized=True,
            paired=False,
            random_state=1,
        )

    t = timed(scipy_boot, 3)
    print(
        f"scipy.stats.bootstrap (percentile),        n_boot=    100: {t * 1e3:8.1f} ms "
        f"(~{t / 100 * 2000:.1f} s for 2,000)"
    )

    tokens = rng.integers(64, 512, N).astype(float)
    t = timed(lambda: log_ratio_error(tokens, base), 5)
    print(f"throughput ratio-of-means, one arm, batch-means standard error:   {t * 1e3:8.1f} ms")

    def arm(x: np.ndarray) -> ArmLevel:
        samples = {"tpot": x, "ttft": x * 10, "e2e": x * 200, "itl_chunk": x}
        return ArmLevel("chat", "concurrency", 1, samples, n_requests=N)

    rules = GateRules.from_measurement(
        {
            "improve": [{"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95}],
            "non_inferiority": [
                {"metric": "ttft_p95", "max_ratio": 1.1},
                {"metric": "e2e_p99", "max_ratio": 1.1},
            ],
        }
    )
    data = GateInput([arm(base)], [arm(cand)])
    for n_boot in (2_000, 10_000):

        def gate(n_boot: int = n_boot) -> object:
            return evaluate_gate(data, rules, seed=0, n_boot=n_boot)

        t = timed(gate, 5)
        print(f"evaluate_gate, 3 rules, 1 level, 2 x {N:,} samples, n_boot={n_boot:>6,}: {t * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
