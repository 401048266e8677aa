"""The recommendation in words, from stored dicts of the pure advisor driven on the known
truth: "can't tell", "speculation off" and "not finished" said plainly, never rounded up."""

from __future__ import annotations

import json
from typing import Any

from advice_app import words
from advice_app.serialize import recommendation_to_dict
from advice_app.strategy import Advisor
from benchmarks_app.gate import GateRules
from tests.advice.test_charts import stored
from tests.support import advice_truth as T


def test_a_clear_winner_is_named_with_its_interval_confidence_and_n() -> None:
    rec = stored("clear")
    text = words.headline(rec)
    chosen = rec["chosen"]
    assert text.startswith(f"Run {chosen['name']} ({chosen['method']}, {chosen['tokens']} tokens): TPOT p50 ")
    lo, hi = rec["value_ci"]
    assert f"{rec['value']:.2f}\u00d7 faster" in text and f"[{lo:.2f}, {hi:.2f}]" in text
    assert f"n = {words.chosen_n(rec)} requests per cell" in text
    assert words.chosen_n(rec) == min(p["n"] for p in rec["curves"][chosen["name"]] if p["n"])
    assert "confidence" in text


def test_a_tie_is_cant_tell_and_names_the_cheaper_one() -> None:
    rec = stored("tie")
    text = words.headline(rec)
    assert text.startswith("Can't tell draft-3 from eagle-3")
    assert "The cheaper one (fewer assets) is draft-3" in text
    rows = words.tied_rows(rec)
    assert [r["candidate"] for r in rows] == ["eagle-3"]
    assert "requests per cell" in rows[0]["separate"] or "no number of requests" in rows[0]["separate"]


def test_a_lane_still_measuring_is_not_a_recommendation() -> None:
    rec = {**stored("clear"), "finished": False}
    assert words.headline(rec).startswith("Not finished: still measuring.")
    assert not words.decided(rec)


def test_speculation_off_is_said_as_such() -> None:
    rec = stored("off", 3)
    assert words.headline(rec).startswith("Speculation off: no candidate beats speculation off")
    assert words.schedule_rows(rec) == [{"where": "concurrency 1 and up", "what": "speculation off"}]


def test_a_run_out_of_budget_is_not_finished_and_not_a_recommendation() -> None:
    # "clear" needs more than its first round to decide; the budget buys only that round.
    rules = GateRules.from_measurement(T.MEASUREMENT)
    cands = T.candidates("clear")
    n_start = Advisor(cands, T.LEVELS, rules, 10**6, 4, lane="clear").n_start  # what the rules need
    first_round = (len(cands) + 1) * len(T.LEVELS) * n_start
    adv = Advisor(cands, T.LEVELS, rules, first_round + 10, 4, lane="clear", n_boot=500)
    engine = T.Engine("clear", 4)
    while batch := adv.next_batch():
        for r in batch:
            adv.record(r.candidate, r.level, engine.measure(r.candidate, r.level, r.n))
    recommendation = adv.recommendation()
    assert recommendation.finished and recommendation.stopped is None  # over, but undecided
    # `stopped` as the stored dict carries it (serialize.recommendation_to_dict).
    rec: dict[str, Any] = json.loads(
        json.dumps({"stopped": None, **recommendation_to_dict(recommendation, adv)})
    )
    assert not words.decided(rec)
    text = words.headline(rec)
    assert text.startswith(
        f"Not finished: the budget was spent ({rec['requests_spent']} of {first_round + 10} requests) "
        "before the advisor could decide."
    )
    assert "not a recommendation" in text


def test_the_schedule_reads_from_which_load_what_runs() -> None:
    rec = {
        "schedule": [
            {"from_level": 1.0, "candidate": "ngram-6", "method": "ngram", "tokens": 6},
            {"from_level": 8.0, "candidate": "ngram-3", "method": "ngram", "tokens": 3},
            {"from_level": 16.0, "candidate": "off", "method": "off", "tokens": 0},
        ]
    }
    assert words.schedule_rows(rec) == [
        {"where": "concurrency 1 to below 8", "what": "ngram-6 (ngram, 6 tokens)"},
        {"where": "concurrency 8 to below 16", "what": "ngram-3 (ngram, 3 tokens)"},
        {"where": "concurrency 16 and up", "what": "speculation off"},
    ]


def test_progress_says_what_the_run_is_doing() -> None:
    pending = {"7": {"lane": "chat", "status": "pending"}, "8": {"lane": "chat", "status": "recorded"}}
    assert words.progress_words("measuring", pending, "") == "Measuring: 1 run pending on lane chat."
    assert words.progress_words("queued", {}, "").startswith("Queued")
    assert words.progress_words("failed", {}, "run 9 lost twice") == "Failed: run 9 lost twice"
