"""An advice run measured for real (tests/support/advice.py: the real harness against
emulators per candidate, results uploaded through the real service): each ended run is
recorded once, the next batch follows, a lost batch is measured again once, and the
recommendation is stored when the advisor stops."""

from __future__ import annotations

from typing import Any

import pytest

from advice_app.choices import AdviceState
from advice_app.measure import advisor_for
from advice_app.models import AdviceRun
from advice_app.services import advice_cancel, advice_run_create, advice_run_finished, advice_runs_left_behind
from benchmarks_app.choices import RunState
from benchmarks_app.models import Run
from contracts_app.models import Route
from kernel.errors import Conflict
from tests.support.advice import LANE, LEVELS, OPTIONS, active_route, lose, play, play_all, queued

pytestmark = pytest.mark.django_db

CANDIDATES = [{"method": "ngram", "tokens": 4}, {"method": "ngram", "tokens": 2}]


@pytest.fixture
def route(proposer: Any, approver: Any) -> Route:
    return active_route(proposer=proposer, approver=approver)


def _advice(route: Route, actor: Any, candidates: list[dict[str, Any]] | None = None) -> AdviceRun:
    return advice_run_create(
        route=route, lanes=[LANE], candidates=candidates or CANDIDATES, budget=2000, seed=3, actor=actor,
        options=OPTIONS,
    )  # fmt: skip


def test_a_finished_run_is_recorded_per_arm_and_level_once(route: Route, operator: Any) -> None:
    advice = _advice(route, operator)
    first, second = queued(advice)
    play(first)
    advice.refresh_from_db()
    records = advice.records[LANE]
    # Both arms at both levels, every request the run measured.
    assert [(r["candidate"]["name"], r["level"]) for r in records] == [
        ("off", 1.0), ("ngram-2", 1.0), ("off", 4.0), ("ngram-2", 4.0)
    ]  # fmt: skip
    assert all(len(r["samples"]["e2e"]) == OPTIONS["n_start"] for r in records)
    assert advice.dispatched[str(first.pk)]["status"] == "recorded"
    # The round waits for its other run: nothing new is dispatched yet.
    assert queued(advice) == [second]
    # A redelivered "run finished" records nothing twice.
    assert "already taken into account" in advice_run_finished(run_id=first.pk)
    advice.refresh_from_db()
    assert len(advice.records[LANE]) == 4


def test_the_stored_records_replay_to_the_batch_it_dispatches_next(route: Route, operator: Any) -> None:
    advice = _advice(route, operator)
    for run in queued(advice):
        play(run)
    advice.refresh_from_db()
    after_first = advice_run_pending(advice)
    # The runs dispatched are what the advisor rebuilt from the stored records asks for.
    asked = advisor_for(advice, LANE).next_batch()
    asked_runs = {(r.candidate.name, r.n, r.level) for r in asked if r.candidate.name != "off"}
    dispatched = {(e["candidate"], e["n"], lv) for e in after_first for lv in e["levels"]}
    assert dispatched == asked_runs
    if asked:
        assert {e["round"] for e in after_first} == {2} and advice.state == AdviceState.MEASURING
    else:  # the advisor decided after one round: nothing more is measured, the lane is answered
        assert advice.state == AdviceState.FINISHED and LANE in advice.recommendations


def advice_run_pending(advice: AdviceRun) -> list[dict[str, Any]]:
    return [e for e in advice.dispatched.values() if e["status"] == "pending"]


def test_it_finishes_with_a_recommendation_per_lane(route: Route, operator: Any) -> None:
    advice = play_all(_advice(route, operator))
    assert advice.state == AdviceState.FINISHED and advice.finished_at is not None
    rec = advice.recommendations[LANE]
    assert rec["verdict"] in ("candidate", "cant_tell")
    assert rec["chosen"]["method"] == "ngram"
    assert rec["value_ci"][0] <= rec["value"] <= rec["value_ci"][1]
    assert rec["requests_spent"] <= advice.budget
    assert set(rec["curves"]) == {"ngram-4", "ngram-2"}
    assert [p["level"] for p in rec["curves"]["ngram-4"]] == [float(lv) for lv in LEVELS]
    assert all(p["n"] >= OPTIONS["n_start"] for p in rec["curves"][rec["chosen"]["name"]])
    assert rec["summary"].startswith(f"Lane {LANE}:")
    assert not queued(advice)
    # Another "run finished" for a finished advice changes nothing.
    last = Run.objects.filter(advice=advice).order_by("-id").first()
    assert last is not None and "already taken into account" in advice_run_finished(run_id=last.pk)


def test_a_lost_batch_is_measured_again_once(route: Route, operator: Any) -> None:
    advice = _advice(route, operator)
    first, second = queued(advice)
    play(first)
    lose(second)
    advice.refresh_from_db()
    assert advice.state == AdviceState.MEASURING
    assert "dispatched again" in advice.last_error and "the GPU fell off the bus" in advice.last_error
    (again,) = queued(advice)
    entry = advice.dispatched[str(again.pk)]
    lost = advice.dispatched[str(second.pk)]
    assert entry["retry"] is True and entry["round"] == 1 and lost["status"] == "lost"
    assert (entry["candidate"], entry["levels"], entry["n"]) == (lost["candidate"], lost["levels"], lost["n"])
    # Lost a second time: the advice fails, saying why; the records stay.
    lose(again, reason="out of memory")
    advice.refresh_from_db()
    assert advice.state == AdviceState.FAILED
    assert "lost twice" in advice.last_error and "out of memory" in advice.last_error
    assert len(advice.records[LANE]) == 4 and not queued(advice)


def test_a_cancelled_advice_cancels_its_runs_and_keeps_its_records(route: Route, operator: Any) -> None:
    advice = _advice(route, operator)
    first, second = queued(advice)
    play(first)
    cancelled = advice_cancel(advice=advice, actor=operator, reason="wrong lane")
    assert cancelled.state == AdviceState.CANCELLED and cancelled.last_error == "cancelled: wrong lane"
    assert Run.objects.get(pk=second.pk).state == RunState.CANCELLED
    assert len(cancelled.records[LANE]) == 4
    with pytest.raises(Conflict):
        advice_cancel(advice=advice, actor=operator)


def test_the_periodic_pass_takes_up_a_step_whose_message_was_lost(
    route: Route, operator: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from advice_app import tasks

    advice = _advice(route, operator)
    monkeypatch.setattr(tasks, "advice_run_finished_enqueue", lambda **_: None)  # the message is lost
    first, _ = queued(advice)
    play(first)
    advice.refresh_from_db()
    assert advice.dispatched[str(first.pk)]["status"] == "pending" and LANE not in advice.records
    assert advice_runs_left_behind() == 1
    advice.refresh_from_db()
    assert advice.dispatched[str(first.pk)]["status"] == "recorded" and len(advice.records[LANE]) == 4
    assert advice_runs_left_behind() == 0


def test_a_run_requeued_after_its_worker_went_silent_still_measures_its_candidate(
    route: Route, operator: Any
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from benchmarks_app.models import Worker
    from benchmarks_app.services.lifecycle import run_start
    from benchmarks_app.services.sweep import runs_sweep
    from tests.support.benchmarked import register_worker

    advice = _advice(route, operator)
    run = queued(advice)[0]
    before = run.spec["arms"]
    w1, w2 = register_worker("gpu-box-1"), register_worker("gpu-box-2")
    run_start(run_id=run.pk, worker=w1, attempt=1)
    Worker.objects.filter(pk=w1.pk).update(last_heartbeat_at=timezone.now() - timedelta(seconds=600))
    assert runs_sweep().requeued == [run.pk]
    run.refresh_from_db()
    assert (run.attempt, run.target_worker_id) == (2, w2.pk)
    # The second attempt runs the same variants: the candidate's speculation, not the version's.
    for arm in ("baseline", "candidate"):
        assert run.spec["arms"][arm]["digest"] == before[arm]["digest"]
        assert run.spec["arms"][arm]["engine"] == before[arm]["engine"]
    assert run.spec["arms"]["candidate"]["speculation_method"] == "ngram"


def test_a_next_batch_that_cannot_be_dispatched_fails_the_advice_in_words(
    route: Route, operator: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from advice_app.services import runs as advice_runs
    from kernel.errors import DomainError

    advice = _advice(route, operator)
    first, second = queued(advice)

    def refuse(**_: Any) -> Run:
        raise DomainError("time_limit_s 99999 is longer than this installation allows")

    monkeypatch.setattr(advice_runs, "variant_run_create", refuse)
    play(first)
    lose(second)  # what it should have measured is dispatched again: refused
    advice.refresh_from_db()
    assert advice.state == AdviceState.FAILED
    assert (
        "could not be dispatched" in advice.last_error
        and "longer than this installation" in advice.last_error
    )
    assert len(advice.records[LANE]) == 4  # what was measured is kept
