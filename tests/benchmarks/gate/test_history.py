"""`measurement.history`: the candidate against the route's earlier approved versions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks_app.gate import EarlierVersion, GateInput, GateInputError, GateRules, Verdict, evaluate_gate
from tests.benchmarks.gate.synthetic import arm


def history_rules(versions: int = 2, max_regression: float = 0.1, metric: str = "tpot_p50") -> GateRules:
    return GateRules.from_measurement(
        {"history": {"versions": versions, "metric": metric, "max_regression": max_regression}}
    )


def gate(
    cand_scale: float, earlier_scales: list[float], rules: GateRules, *, n: int = 2000, lane: str = "chat"
):
    rng = np.random.default_rng(7)
    earlier = [
        EarlierVersion(number=10 - i, release_id=100 - i, candidate=[arm(rng, scale=s, n=n, lane=lane)])
        for i, s in enumerate(earlier_scales)
    ]
    data = GateInput([arm(rng, scale=1.0, n=n)], [arm(rng, scale=cand_scale, n=n)], history=earlier)
    return evaluate_gate(data, rules, seed=3, n_boot=2000)


def history_checks(result):
    return [c for c in result.checks if c.rule_id == "history"]


def test_no_worse_than_both_earlier_versions_passes_with_each_version_as_evidence():
    result = gate(1.0, [1.0, 1.02], history_rules())
    checks = history_checks(result)
    assert result.verdict is Verdict.PASS
    assert [c.compared["version"] for c in checks] == [10, 9]
    assert [c.compared["release_id"] for c in checks] == [100, 99]
    for c in checks:
        assert c.verdict is Verdict.PASS and c.kind == "history"
        assert c.ci_high <= 1.1 and c.required == pytest.approx(1.1)
        assert 25 < c.compared["value"] < 35 and c.compared["unit"] == "ms"  # TPOT p50 ≈ 30 ms
        assert "of version" in c.reason and "baseline" not in c.reason
    stored = json.loads(json.dumps(result.as_dict()))
    history = [c for c in stored["checks"] if c["rule_id"] == "history"]
    assert history[0]["compared"]["version"] == 10 and history[0]["compared"]["value"] > 0
    assert all("compared" not in c for c in stored["checks"] if c["rule_id"] != "history")
    assert any(r["rule_id"] == "history" and r["verdict"] == "pass" for r in stored["rules"])
    assert "one Holm family of their own" in stored["method"]["history"]


def test_worse_than_one_earlier_version_fails_and_names_it():
    # 1.3x the latency of version 10 (beyond its 10% margin); version 9 was slower still.
    result = gate(1.3, [1.0, 1.3], history_rules())
    by_version = {c.compared["version"]: c for c in history_checks(result)}
    assert result.verdict is Verdict.FAIL
    assert by_version[10].verdict is Verdict.FAIL
    assert "version 10 (release 100)" in by_version[10].reason
    assert by_version[9].verdict is Verdict.PASS


def test_within_the_margin_by_the_estimate_only_is_marginal():
    # 5% slower, a 10% margin, and too few requests for the upper bound to be under it.
    result = gate(1.05, [1.0], history_rules(versions=1), n=40)
    (check,) = history_checks(result)
    assert check.estimate < 1.1 < check.ci_high
    assert check.verdict is Verdict.MARGINAL
    assert result.verdict is Verdict.MARGINAL


def test_fewer_earlier_versions_than_asked_is_marginal_and_said_in_words():
    result = gate(1.0, [1.0], history_rules(versions=3))
    checks = history_checks(result)
    shortfall = [c for c in checks if c.compared is None]
    assert result.verdict is Verdict.MARGINAL
    assert len(shortfall) == 1 and shortfall[0].verdict is Verdict.MARGINAL
    assert "only 1 of 3 earlier approved versions has a result on lane chat" in shortfall[0].reason
    assert "the route has 1 earlier approved version" in shortfall[0].reason
    # The one there is still compared.
    assert [c.compared["version"] for c in checks if c.compared] == [10]


def test_an_earlier_version_without_a_result_on_the_lane_counts_as_missing():
    rng = np.random.default_rng(1)
    earlier = [
        EarlierVersion(2, 20, [arm(rng, scale=1.0, lane="chat")]),
        EarlierVersion(1, 10, []),  # approved without a benchmark (a route's first version)
    ]
    data = GateInput([arm(rng, scale=1.0)], [arm(rng, scale=1.0)], history=earlier)
    result = evaluate_gate(data, history_rules(versions=2), seed=0, n_boot=500)
    reasons = [c.reason for c in history_checks(result) if c.compared is None]
    assert reasons == [
        "Lane chat: only 1 of 2 earlier approved versions has a result on lane chat: "
        "the comparison with history is incomplete."
    ]
    assert result.verdict is Verdict.MARGINAL


def test_no_history_at_all_is_never_a_silent_pass():
    result = gate(1.0, [], history_rules(versions=1))
    (check,) = history_checks(result)
    assert check.verdict is Verdict.MARGINAL
    assert check.reason.startswith(
        "Lane chat: no earlier approved version has a result on lane chat (1 asked)"
    )
    assert "the route has 0 earlier approved versions" in check.reason


def test_a_level_the_earlier_version_did_not_measure_is_marginal():
    rng = np.random.default_rng(2)
    earlier = [EarlierVersion(4, 40, [arm(rng, scale=1.0, level=1)])]
    data = GateInput(
        [arm(rng, scale=1.0, level=1), arm(rng, scale=1.0, level=8)],
        [arm(rng, scale=1.0, level=1), arm(rng, scale=1.0, level=8)],
        history=earlier,
    )
    result = evaluate_gate(data, history_rules(versions=1), seed=0, n_boot=500)
    at_8 = [c for c in history_checks(result) if c.level == 8]
    assert len(at_8) == 1 and at_8[0].verdict is Verdict.MARGINAL
    assert "version 4 (release 40) was not measured at concurrency 8" in at_8[0].reason


def test_an_earlier_version_whose_own_benchmark_failed_requests_is_named_and_marginal():
    rng = np.random.default_rng(4)
    earlier = [EarlierVersion(6, 60, [arm(rng, scale=1.0, errors=50)])]
    data = GateInput([arm(rng, scale=1.0)], [arm(rng, scale=1.0)], history=earlier)
    result = evaluate_gate(data, history_rules(versions=1), seed=0, n_boot=500)
    (check,) = history_checks(result)
    assert check.verdict is Verdict.MARGINAL and check.compared["version"] == 6
    assert check.reason.startswith("The version 6 (release 60) failed 50 of 250 requests (20%)")


def test_too_few_requests_against_an_earlier_version_says_which():
    result = gate(1.0, [1.0], history_rules(versions=1, metric="tpot_p95"), n=30)
    (check,) = history_checks(result)
    assert check.verdict is Verdict.MARGINAL
    assert check.reason.startswith("Against version 10 (release 100): Lane chat:")
    assert check.requests_needed == 59


def test_without_the_rule_history_is_not_read():
    rng = np.random.default_rng(3)
    data = GateInput([arm(rng, scale=1.0)], [arm(rng, scale=1.0)], history=[EarlierVersion(1, 1, [])])
    result = evaluate_gate(data, GateRules.from_measurement({}), seed=0, n_boot=500)
    assert not history_checks(result)
    assert "history" not in result.method


@pytest.mark.parametrize(
    ("history", "words"),
    [
        ({"versions": 0, "metric": "tpot_p50", "max_regression": 0.1}, "versions must be a whole number"),
        ({"versions": 21, "metric": "tpot_p50", "max_regression": 0.1}, "from 1 to 20"),
        ({"versions": 2.5, "metric": "tpot_p50", "max_regression": 0.1}, "versions must be"),
        ({"versions": 2, "metric": "tpot_p42", "max_regression": 0.1}, "unknown metric 'tpot_p42'"),
        ({"versions": 2, "metric": "tpot_p50", "max_regression": -0.1}, "max_regression"),
        ({"versions": 2, "metric": "tpot_p50"}, "max_regression"),
        ({"versions": 2, "metric": "tpot_p50", "max_regression": 0.1, "confidence": 1}, "confidence"),
        ("three", "measurement.history must be a mapping"),
    ],
)
def test_a_malformed_history_rule_is_refused_with_its_field(history, words):
    with pytest.raises(GateInputError, match=words):
        GateRules.from_measurement({"history": history})


def test_the_history_rule_is_read_with_its_bound():
    rule = history_rules(versions=3, max_regression=0.05, metric="ttft_p95").history
    assert rule is not None and rule.versions == 3 and rule.bound == pytest.approx(1.05)
    assert rule.describe().startswith("TTFT p95 ≤ 1.05")
    assert "last 3 approved versions" in rule.describe()


def test_an_earlier_version_whose_samples_were_pruned_is_named_in_the_shortfall():
    rng = np.random.default_rng(7)
    earlier = [
        EarlierVersion(number=10, release_id=100, candidate=[arm(rng, scale=1.0, n=2000)]),
        EarlierVersion(number=9, release_id=99, pruned={"chat": "2026-06-01"}),
    ]
    data = GateInput([arm(rng, scale=1.0, n=2000)], [arm(rng, scale=1.0, n=2000)], history=earlier)
    result = evaluate_gate(data, history_rules(versions=2), seed=3, n_boot=2000)
    (shortfall,) = [c for c in history_checks(result) if c.compared is None]
    assert result.verdict is Verdict.MARGINAL and shortfall.verdict is Verdict.MARGINAL
    assert "only 1 of 2 earlier approved versions has a result on lane chat" in shortfall.reason
    assert (
        "version 9 (release 99)'s raw samples on lane chat were pruned on 2026-06-01 by the retention setting"
        in shortfall.reason
    )
