"""Per-level aggregates: small, JSON, and faithful to the samples they summarise."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks_app.aggregates import QUANTILE_PROBS, aggregate_level, sketch, sketch_quantile


def test_a_level_aggregate_is_small_json_with_every_metric(run):
    agg = run["candidate"][0]
    text = json.dumps(agg, allow_nan=False)
    assert len(text) < 6_000
    assert (agg["level_kind"], agg["level"], agg["requests"], agg["errors"]) == ("concurrency", 1.0, 60, 2)
    assert set(agg["metrics"]) == {"ttft_ms", "tpot_ms", "e2e_ms", "itl_chunk_ms", "tokens_per_chunk"}
    assert agg["metrics"]["ttft_ms"]["count"] == 58 and agg["metrics"]["itl_chunk_ms"]["count"] == 580
    assert agg["scalars"]["acceptance_rate"] == pytest.approx(0.8 / (1 + 1 / 16), rel=1e-3)
    assert agg["scalars"]["headroom_gib"] == 19


def test_speculation_not_reported_stays_none(run):
    assert run["baseline"][0]["scalars"]["acceptance_rate"] is None
    assert run["baseline"][0]["scalars"]["mean_acceptance_length"] is None


def test_the_sketch_keeps_the_quantiles_and_a_log_histogram():
    x = np.random.default_rng(1).lognormal(3, 1, 10_000)
    sk = sketch(np.concatenate([x, [0.0, 0.0]]))
    assert len(sk["quantiles"]) == len(QUANTILE_PROBS) == 99
    for p in (0.5, 0.9, 0.95, 0.99):
        assert sketch_quantile(sk, p) == pytest.approx(np.quantile(np.concatenate([x, [0, 0]]), p), rel=1e-3)
    assert sk["histogram"]["zeros"] == 2 and sum(sk["histogram"]["counts"]) == 10_000
    assert sk["min"] == 0.0 and sk["count"] == 10_002


def test_no_requests_and_failed_requests_only_do_not_crash():
    assert aggregate_level([])["metrics"]["ttft_ms"] == {"count": 0}
    failed = aggregate_level([{"error": "timeout", "ttft_ms": None}], {"rate": 2.0})
    assert (failed["requests"], failed["errors"], failed["level_kind"]) == (1, 1, "rate")
    assert sketch_quantile(failed["metrics"]["tpot_ms"], 0.5) is None
    one = sketch(np.array([5.0, 5.0]))
    assert one["quantiles"][0] == 5.0 and sum(one["histogram"]["counts"]) == 2
