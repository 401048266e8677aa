"""The gate's calibration: on A/A pairs (a change that does nothing) each built-in rule
passes no more often than its nominal level allows, over 1,000+ simulated pairs on a
fixed seed (benchmarks/gate_calibration.py makes the pairs; the real gate judges them)."""

from __future__ import annotations

import pytest

from benchmarks.gate_calibration import BUILT_IN_RULES, binomial_bound, shares_for_test
from benchmarks_app.gate import Verdict
from benchmarks_app.gate.calibration import calibration_note, calibration_table

PAIRS = 1000


@pytest.mark.parametrize("rule", BUILT_IN_RULES, ids=lambda r: r.label)
def test_a_change_that_does_nothing_passes_within_the_nominal_level(rule):
    shares = shares_for_test(rule, pairs=PAIRS, n=64, scenario="iid", seed=11, n_boot=1000)
    assert shares[Verdict.PASS] <= binomial_bound(rule.nominal, PAIRS), shares


# Known gap, measured (seed 11, 1,000 pairs, bound 7.3%): with every arm of >= 30 requests
# block-resampled (blocks >= n^(1/3)) TPOT p50 is within the bound (6.9%), but the
# throughput rule passes 7.7% of A/A pairs on the drifting AR(1) host and 6.1% on an iid
# one: its percentile interval for a ratio of means is itself narrow at 64 requests, and
# longer blocks make it worse (blocks of 8: 8.4% / 7.4%). Strict: the day it's fixed, it says so.
_WEAK_DEPENDENCE = pytest.mark.xfail(
    strict=True, reason="throughput's ratio-of-means percentile interval is narrow at 64 requests"
)
_GAP = {"output_tokens_per_s"}


@pytest.mark.parametrize(
    "rule",
    [pytest.param(r, marks=_WEAK_DEPENDENCE) if r.metric in _GAP else r for r in BUILT_IN_RULES],
    ids=lambda r: r.label,
)
def test_on_a_drifting_autocorrelated_host_interleaved_arms_stay_within_the_nominal_level(rule):
    shares = shares_for_test(rule, pairs=PAIRS, n=64, scenario="interleaved", seed=11, n_boot=1000)
    assert shares[Verdict.PASS] <= binomial_bound(rule.nominal, PAIRS), shares


def test_the_old_sequential_order_under_drift_is_what_the_bound_catches():
    """The same check has teeth: with the arms one after the other, the host's drift lands
    on one arm and a change that does nothing passes far more often than 5%."""
    rule = BUILT_IN_RULES[0]
    shares = shares_for_test(rule, pairs=PAIRS, n=64, scenario="sequential", seed=11, n_boot=1000)
    assert shares[Verdict.PASS] > binomial_bound(rule.nominal, PAIRS), shares


def test_the_method_notes_quote_the_committed_calibration_table():
    table = calibration_table()
    assert table is not None, (
        "benchmarks_app/gate/calibration.json is missing: run benchmarks/gate_calibration.py"
    )
    note = calibration_note()
    for row in table["rules"]:
        assert row["rule"] in note
        assert f"false pass {100 * row['false_pass']:.1f}%" in note
