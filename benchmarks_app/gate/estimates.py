"""The improvement ratio of one metric at one lane and level, with its bootstrap draws.

The improvement ratio r is ≥ 1 when the candidate is better: baseline/candidate for a
latency quantile, candidate/baseline for throughput. Non-inferiority uses its inverse.
Each arm of a quantile rule is resampled independently, from its own generator (see
`rng_for`): by the exact independent bootstrap, or by a circular block bootstrap
(autocorrelation.py: every arm of at least 30 requests). A throughput ratio's interval is
batch means with Student's t (batch_means.py). Pooled inter-chunk gaps always take
the independent one (their order mixes gaps within and across requests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchmarks_app.gate.autocorrelation import (
    Resampling,
    block_bootstrap_quantile,
    resampling_plan,
)
from benchmarks_app.gate.batch_means import log_ratio_error, t_draws, welch
from benchmarks_app.gate.bootstrap import bootstrap_quantile, quantile, rng_for
from benchmarks_app.gate.inputs import ArmLevel, FloatArray
from benchmarks_app.gate.metrics import METRICS
from benchmarks_app.gate.result import Verdict
from benchmarks_app.gate.wording import level_label

Key = tuple[str, str, float]


@dataclass(frozen=True)
class Estimate:
    estimate: float
    draws: FloatArray
    n_baseline: int
    n_candidate: int
    problem: str | None = None  # set: the ratio can't be estimated; `problem_verdict` says how bad
    problem_verdict: Verdict = Verdict.MARGINAL
    # How each arm was resampled (None: not decided, e.g. pooled inter-chunk gaps).
    resampling_baseline: Resampling | None = None
    resampling_candidate: Resampling | None = None
    # Set where the interval is not a bootstrap (throughput: batch_means.py); says how.
    interval_method: str | None = None

    @property
    def blocked(self) -> bool:
        return any(r is not None and r.blocked for r in (self.resampling_baseline, self.resampling_candidate))

    def describe_resampling(self) -> str | None:
        if self.interval_method is not None:
            return self.interval_method
        if self.resampling_baseline is None or self.resampling_candidate is None:
            return None
        return (
            f"baseline: {self.resampling_baseline.describe()}; "
            f"candidate: {self.resampling_candidate.describe()}"
        )

    def interval(self, alpha: float) -> tuple[float, float]:
        lo, hi = np.quantile(self.draws, [alpha, 1 - alpha])
        return float(lo), float(hi)


class Estimator:
    """Computes (and caches) estimates so that a rule and the crossover at the same level
    share the same draws."""

    def __init__(
        self,
        baseline: dict[Key, ArmLevel],
        candidate: dict[Key, ArmLevel],
        *,
        seed: int,
        n_boot: int,
        min_samples: int,
        max_error_rate: float,
        baseline_name: str = "baseline",
    ) -> None:
        # What the baseline arm is called in reasons ("version 3 (release 12)": history.py).
        self.baseline_name = baseline_name
        self.baseline = baseline
        self.candidate = candidate
        self.seed = seed
        self.n_boot = n_boot
        self.min_samples = min_samples
        self.max_error_rate = max_error_rate
        self._cache: dict[tuple[Key, str], Estimate] = {}

    def get(self, key: Key, metric: str) -> Estimate:
        if (key, metric) not in self._cache:
            self._cache[(key, metric)] = self._compute(key, metric)
        return self._cache[(key, metric)]

    def _compute(self, key: Key, metric: str) -> Estimate:
        lane, kind, level = key
        where = level_label(kind, level)
        base, cand = self.baseline.get(key), self.candidate.get(key)
        if base is None or cand is None:
            missing = " and ".join(
                a for a, x in ((self.baseline_name, base), ("candidate", cand)) if x is None
            )
            return _problem(f"{where} was not measured for the {missing} in lane {lane}.")
        if (rate := _error_rate(cand)) > self.max_error_rate:
            return _problem(
                f"The candidate failed {cand.n_errors} of {cand.n_requests} requests ({rate:.0%}) at {where} "
                f"in lane {lane}; at most {self.max_error_rate:.0%} allowed.",
                Verdict.FAIL,
            )
        if (rate := _error_rate(base)) > self.max_error_rate:
            return _problem(
                f"The {self.baseline_name} failed {base.n_errors} of {base.n_requests} requests "
                f"({rate:.0%}) at {where} in lane {lane}: the comparison is not trustworthy."
            )
        m = METRICS[metric]
        if m.quantile is None:
            return self._throughput(key, metric, base, cand, where)
        xb, xc = base.samples.get(m.base, np.empty(0)), cand.samples.get(m.base, np.empty(0))
        if (few := self._too_few(len(xb), len(xc), m.label, where, lane)) is not None:
            return few
        qb, qc = quantile(xb, m.quantile), quantile(xc, m.quantile)
        if qb <= 0 or qc <= 0:
            return _problem(f"{m.label} is 0 ms at {where} in lane {lane}: the ratio is undefined.")
        if m.base == "itl_chunk":
            plan_b = plan_c = None
            db = bootstrap_quantile(xb, m.quantile, self.n_boot, rng_for(self.seed, "baseline", *key, metric))
            dc = bootstrap_quantile(
                xc, m.quantile, self.n_boot, rng_for(self.seed, "candidate", *key, metric)
            )
        else:
            plan_b, plan_c = resampling_plan(xb), resampling_plan(xc)
            db = self._quantile_draws(xb, m.quantile, plan_b, rng_for(self.seed, "baseline", *key, metric))
            dc = self._quantile_draws(xc, m.quantile, plan_c, rng_for(self.seed, "candidate", *key, metric))
        with np.errstate(divide="ignore", invalid="ignore"):
            draws = db / dc  # lower is better: improvement = baseline / candidate
        return Estimate(qb / qc, _finite(draws), len(xb), len(xc), None, Verdict.MARGINAL, plan_b, plan_c)

    def _quantile_draws(
        self, x: FloatArray, q: float, plan: Resampling, rng: np.random.Generator
    ) -> FloatArray:
        if plan.blocked:
            return block_bootstrap_quantile(x, q, plan.block, self.n_boot, rng)
        return bootstrap_quantile(x, q, self.n_boot, rng)

    def _throughput(self, key: Key, metric: str, base: ArmLevel, cand: ArmLevel, where: str) -> Estimate:
        label = METRICS[metric].label
        if (few := self._too_few(len(base.e2e_ms), len(cand.e2e_ms), label, where, key[0])) is not None:
            return few

        def num(arm: ArmLevel) -> FloatArray:
            return arm.output_tokens if metric == "output_tokens_per_s" else np.ones(len(arm.e2e_ms))

        def point(arm: ArmLevel) -> float:
            return float(num(arm).mean() / arm.e2e_ms.mean())

        pb, pc = point(base), point(cand)
        if not (pb > 0 and pc > 0 and np.isfinite(pb) and np.isfinite(pc)):
            return _problem(f"{label} at {where} in lane {key[0]} is 0 or undefined: the ratio is undefined.")
        # Batch means with Student's t, not a bootstrap: the percentile bootstrap of a ratio
        # of means was too narrow at 64 requests, dependent or not (batch_means.py).
        eb, ec = log_ratio_error(num(base), base.e2e_ms), log_ratio_error(num(cand), cand.e2e_ms)
        if eb is None or ec is None:
            return _problem(f"{label} at {where} in lane {key[0]} has no standard error: too few requests.")
        se, df = welch(eb, ec)
        return Estimate(
            pc / pb,
            t_draws(math.log(pc / pb), se, df, self.n_boot),  # higher is better: candidate / baseline
            len(base.e2e_ms),
            len(cand.e2e_ms),
            interval_method=(
                f"batch means: each arm's requests in run order in {eb.batches} and {ec.batches} "
                f"consecutive batches, Student's t with {df:.0f} degrees of freedom"
            ),
        )

    def _too_few(self, nb: int, nc: int, label: str, where: str, lane: str) -> Estimate | None:
        if min(nb, nc) >= self.min_samples:
            return None
        return _problem(
            f"Too few {label} samples at {where} in lane {lane} ({self.baseline_name} {nb}, candidate {nc}); "
            f"at least {self.min_samples} per arm needed.",
            n=(nb, nc),
        )


def _error_rate(arm: ArmLevel) -> float:
    return arm.n_errors / arm.n_requests if arm.n_requests > 0 else 0.0


def _finite(draws: FloatArray) -> FloatArray:
    kept = draws[np.isfinite(draws)]
    return kept if len(kept) else np.array([np.nan])


def _problem(reason: str, verdict: Verdict = Verdict.MARGINAL, n: tuple[int, int] = (0, 0)) -> Estimate:
    return Estimate(float("nan"), np.array([np.nan]), n[0], n[1], reason, verdict)
