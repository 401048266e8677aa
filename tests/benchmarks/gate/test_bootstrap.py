"""The exact order-statistic bootstrap is the bootstrap: same distribution as resampling."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchmarks_app.gate.bootstrap import bootstrap_quantile, quantile, rng_for


@pytest.mark.parametrize(("n", "q"), [(7, 0.5), (50, 0.5), (50, 0.9), (200, 0.95), (200, 0.99), (31, 1.0)])
def test_it_matches_brute_force_resampling_in_distribution(n, q):
    rng = np.random.default_rng(n)
    x = rng.lognormal(0, 1, n)
    exact = bootstrap_quantile(x, q, 20_000, np.random.default_rng(1))
    idx = np.random.default_rng(2).integers(0, n, (20_000, n))
    brute = np.quantile(x[idx], q, axis=1)
    # Same support, same shape: a two-sample KS test can't tell them apart.
    assert stats.ks_2samp(exact, brute).pvalue > 0.001
    for p in (0.05, 0.5, 0.95):
        assert np.quantile(exact, p) == pytest.approx(np.quantile(brute, p), rel=0.05)


def test_ties_in_the_sample_are_handled():
    x = np.array([5.0] * 30 + [10.0] * 20)
    exact = bootstrap_quantile(x, 0.5, 20_000, np.random.default_rng(3))
    brute = np.quantile(x[np.random.default_rng(4).integers(0, 50, (20_000, 50))], 0.5, axis=1)
    assert set(np.unique(exact)) <= {5.0, 7.5, 10.0}
    assert np.mean(exact == 5.0) == pytest.approx(np.mean(brute == 5.0), abs=0.02)


def test_a_90_percent_interval_of_a_quantile_ratio_covers_the_truth_about_90_percent_of_the_time():
    truth = 1.5  # the ratio of medians of the two lognormals below
    covered = 0
    for rep in range(300):
        rng = np.random.default_rng(1000 + rep)
        base, cand = rng.lognormal(np.log(1.5), 0.5, 400), rng.lognormal(0, 0.5, 400)
        r = bootstrap_quantile(base, 0.5, 2_000, rng) / bootstrap_quantile(cand, 0.5, 2_000, rng)
        lo, hi = np.quantile(r, [0.05, 0.95])
        covered += lo <= truth <= hi
    assert 0.85 <= covered / 300 <= 0.95


def test_the_point_estimate_is_numpys_default_quantile():
    x = np.random.default_rng(5).exponential(1, 101)
    assert quantile(x, 0.95) == np.quantile(x, 0.95)


def test_generators_depend_on_seed_and_key_only():
    a = rng_for(3, "baseline", "chat", "concurrency", 1.0, "tpot_p50").random()
    assert a == rng_for(3, "baseline", "chat", "concurrency", 1.0, "tpot_p50").random()
    assert a != rng_for(3, "candidate", "chat", "concurrency", 1.0, "tpot_p50").random()
    assert a != rng_for(4, "baseline", "chat", "concurrency", 1.0, "tpot_p50").random()
