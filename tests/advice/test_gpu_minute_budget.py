"""A budget in GPU-minutes beside the one in requests: the minutes an advice's runs held a
worker, checked between rounds; a lane it stops is said to have run out of budget before
the advisor decided, never given as the advisor's decision."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from advice_app import words
from advice_app.choices import AdviceState
from advice_app.measure import advisor_for
from advice_app.models import AdviceRun
from advice_app.selectors import gpu_minutes_spent
from advice_app.services import advice_run_create
from advice_app.services.runs import _stopped_by
from benchmarks_app.models import Run
from contracts_app.models import Route
from kernel.errors import DomainError
from tests.support.advice import LANE, OPTIONS, active_route, play, queued

pytestmark = pytest.mark.django_db

CANDIDATES = [{"method": "ngram", "tokens": 4}, {"method": "ngram", "tokens": 2}]


@pytest.fixture
def route(proposer: Any, approver: Any) -> Route:
    return active_route(proposer=proposer, approver=approver)


def _advice(route: Route, actor: Any, **kw: Any) -> AdviceRun:
    args: dict[str, Any] = {"route": route, "lanes": [LANE], "candidates": CANDIDATES, "budget": 2000,
                            "seed": 3, "actor": actor, "options": {**OPTIONS, "looks": 4}}  # fmt: skip
    return advice_run_create(**(args | kw))


@pytest.mark.parametrize("bad", [0, -1, "ten", True, float("nan"), float("inf"), 7 * 24 * 60 + 1])
def test_a_gpu_minute_budget_that_is_not_a_positive_number_is_refused_by_field(
    route: Route, operator: Any, bad: Any
) -> None:
    with pytest.raises(DomainError) as exc:
        _advice(route, operator, budget_gpu_minutes=bad)
    assert [e.path for e in exc.value.errors] == ["budget_gpu_minutes"]
    assert not AdviceRun.objects.exists() and not Run.objects.exists()


def test_minutes_spent_count_each_run_from_start_to_finish_or_to_now(route: Route, operator: Any) -> None:
    advice = _advice(route, operator, budget_gpu_minutes=30)
    first, second = queued(advice)
    assert gpu_minutes_spent(advice) == 0  # nothing started
    now = timezone.now()
    Run.objects.filter(pk=first.pk).update(started_at=now - timedelta(minutes=5), finished_at=now)
    Run.objects.filter(pk=second.pk).update(started_at=now - timedelta(minutes=2))  # still running
    assert 7 <= gpu_minutes_spent(advice) < 7.1


def test_a_spent_gpu_minute_budget_stops_the_lane_between_rounds(route: Route, operator: Any) -> None:
    advice = _advice(route, operator, budget_gpu_minutes=1)
    first, second = queued(advice)
    play(first)
    # The round's first run held a worker for two minutes: the budget is spent when it ends.
    Run.objects.filter(pk=first.pk).update(started_at=timezone.now() - timedelta(minutes=2))
    play(second)
    advice.refresh_from_db()
    assert advice.state == AdviceState.FINISHED and not queued(advice)
    rec = advice.recommendations[LANE]
    if advisor_for(advice, LANE).next_batch():  # the advisor wanted another round: the budget stopped it
        assert rec["budget_spent"].endswith("of 1 GPU-minutes") and rec["stopped"] is None
        assert "Measuring stopped: the GPU-minute budget was spent" in rec["summary"]
        assert words.headline(rec).startswith("Not finished: the budget was spent (")
        assert not words.decided(rec)
    else:  # it decided on the first round: the budget played no part
        assert "budget_spent" not in rec and words.decided(rec)


def test_a_lane_stopped_by_worker_time_is_said_so_never_as_a_decision() -> None:
    rec = {"verdict": "candidate", "chosen": {"name": "ngram-4", "method": "ngram", "tokens": 4},
           "value": 1.3, "value_ci": [1.1, 1.5], "confidence": 0.95, "finished": False, "stopped": None,
           "requests_spent": 128, "budget": 2000, "summary": "Lane chat: ngram-4 1.300x."}  # fmt: skip
    assert _stopped_by(rec, None) is rec
    stopped = _stopped_by(rec, "12.5 of 10 GPU-minutes")
    assert (stopped["finished"], stopped["stopped"], stopped["budget_spent"]) == (
        True,
        None,
        "12.5 of 10 GPU-minutes",
    )
    head = words.headline(stopped)
    assert head.startswith("Not finished: the budget was spent (12.5 of 10 GPU-minutes) before the advisor")
    assert "not a recommendation" in head
