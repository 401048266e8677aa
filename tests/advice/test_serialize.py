"""Advice values as JSON: candidates and records round-trip exactly (a resumed advisor
replays to the same state), a recommendation carries what the page shows."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from advice_app.serialize import (
    candidate_from_dict,
    candidate_to_dict,
    recommendation_to_dict,
    record_from_dict,
    record_to_dict,
)
from advice_app.strategy import BASELINE, Advisor, Candidate, Record, Samples
from benchmarks_app.gate import GateRules
from tests.support import advice_truth as T

RULES = GateRules.from_measurement(T.MEASUREMENT)


def _json(x: object) -> Any:
    # Through real JSON text, as the database column stores it.
    return json.loads(json.dumps(x, allow_nan=False))


def test_a_candidate_round_trips_with_its_params() -> None:
    c = Candidate("ngram-4", "ngram", 4, assets=0, memory_gib=0.5, schedulable=False)
    d = _json(candidate_to_dict(c, {"prompt_lookup_min": 2}))
    assert d["params"] == {"prompt_lookup_min": 2}
    assert candidate_from_dict(d) == c


def test_the_baseline_round_trips_to_the_baseline() -> None:
    assert candidate_from_dict(_json(candidate_to_dict(BASELINE))) is BASELINE


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "x", "method": "ngram", "tokens": 0},
        {"name": "x", "method": "ngram", "tokens": "3"},
        {"name": "", "method": "ngram", "tokens": 3},
        {"name": "x", "method": "ngram", "tokens": 3, "colour": "red"},
        ["x"],
    ],
    ids=["zero-tokens", "tokens-text", "no-name", "unknown-field", "not-an-object"],
)
def test_a_bad_candidate_dict_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        candidate_from_dict(bad)  # type: ignore[arg-type]


def test_a_record_round_trips_exactly() -> None:
    rng = np.random.default_rng(7)
    s = Samples(
        ttft=rng.gamma(2, 30, 9),
        tpot=rng.gamma(2, 3, 9),
        e2e=rng.gamma(2, 90, 9),
        output_tokens=np.full(9, 32.0),
        n_errors=2,
    )
    r = Record(Candidate("d3", "draft_model", 3, assets=1), 4.0, s)
    back = record_from_dict(_json(record_to_dict(r)))
    assert back.candidate == r.candidate and back.level == 4.0
    for name in ("ttft", "tpot", "e2e", "output_tokens"):
        assert np.array_equal(getattr(back.samples, name), getattr(s, name))
    assert back.samples.n_errors == 2


def _advisor(lane: str, records: tuple[Record, ...] = ()) -> Advisor:
    return Advisor(T.candidates(lane), T.LEVELS, RULES, 100_000, 5, lane=lane, n_boot=500, records=records)


def test_stored_records_replay_to_the_same_next_batch() -> None:
    engine, adv = T.Engine("tie", 5), _advisor("tie")
    for _ in range(2):
        for r in adv.next_batch():
            adv.record(r.candidate, r.level, engine.measure(r.candidate, r.level, r.n))
    stored = _json([record_to_dict(r) for r in adv.records])
    resumed = _advisor("tie", tuple(record_from_dict(d) for d in stored))
    assert resumed.next_batch() == adv.next_batch()
    assert resumed.spent == adv.spent


def _finish(lane: str) -> Advisor:
    engine, adv = T.Engine(lane, 3), _advisor(lane)
    while batch := adv.next_batch():
        for r in batch:
            adv.record(r.candidate, r.level, engine.measure(r.candidate, r.level, r.n))
    return adv


def test_a_recommendation_carries_what_the_page_shows() -> None:
    adv = _finish("tie")
    rec = adv.recommendation()
    d = _json(recommendation_to_dict(rec, adv))
    assert d["verdict"] == rec.verdict == "cant_tell"
    assert d["chosen"]["name"] == rec.chosen.name  # type: ignore[union-attr]
    assert d["value"] == pytest.approx(rec.value) and d["value_ci"][0] <= d["value"] <= d["value_ci"][1]
    assert d["crossover"]["reason"] == rec.crossover.reason  # type: ignore[union-attr]
    assert [s["candidate"] for s in d["schedule"]] == [s.candidate.name for s in rec.schedule]
    assert [t["candidate"] for t in d["tied"]] == [t.other.name for t in rec.tied]
    assert set(d["tied"][0]) == {"candidate", "ratio", "interval", "n", "requests_per_cell"}
    assert [(x["candidate"], x["reason"]) for x in d["dropped"]] == [
        (x.candidate.name, x.reason) for x in rec.dropped
    ]
    assert (d["requests_spent"], d["budget"], d["finished"]) == (rec.requests_spent, 100_000, True)
    assert d["summary"] == rec.summary
    # Every candidate's curve, one point per level, with intervals and n where measured.
    assert set(d["curves"]) == {c.name for c in adv.candidates}
    for points in d["curves"].values():
        assert [p["level"] for p in points] == list(T.LEVELS)
        measured = [p for p in points if p["speedup"] is not None]
        assert measured and all(p["ci_low"] <= p["speedup"] <= p["ci_high"] and p["n"] > 0 for p in measured)
    assert {c["name"]: c["assets"] for c in d["candidates"]} == {c.name: c.assets for c in adv.candidates}


def test_speculation_off_serialises_without_a_chosen_candidate() -> None:
    adv = _finish("off")
    d = _json(recommendation_to_dict(adv.recommendation()))
    assert d["verdict"] == "speculation_off" and d["chosen"] is None and d["value"] is None
    assert d["schedule"] == [{"from_level": T.LEVELS[0], "candidate": "off", "method": "off", "tokens": 0}]
    assert "curves" not in d
