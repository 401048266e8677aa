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


@pytest.mark.parametrize("rule", BUILT_IN_RULES, ids=lambda r: r.label)
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
