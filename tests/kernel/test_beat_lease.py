"""One beat sends the schedule however many run (kernel/beat.py): the lease, and two
schedulers ticking on it. The same with real beat processes: tests/multihost/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from django.utils import timezone

from kernel.beat import (
    LEASE_NAME,
    SingleBeatScheduler,
    beat_lease_hold,
    beat_lease_holder,
    beat_lease_release,
)
from kernel.models import BeatLease

pytestmark = pytest.mark.django_db


def _run_out() -> None:
    BeatLease.objects.filter(name=LEASE_NAME).update(expires_at=timezone.now() - timedelta(seconds=1))


def test_the_first_beat_takes_the_lease_and_a_second_is_refused_while_it_holds() -> None:
    assert beat_lease_hold(holder="a", lease_s=30)
    assert not beat_lease_hold(holder="b", lease_s=30)
    assert beat_lease_hold(holder="a", lease_s=30)  # renewed by its holder
    assert beat_lease_holder() == "a"


def test_a_lease_that_ran_out_goes_to_the_next_beat_and_its_old_holder_stays_out() -> None:
    assert beat_lease_hold(holder="a", lease_s=30)
    _run_out()  # the holder died (kill -9) or froze past its lease
    assert beat_lease_holder() is None
    assert beat_lease_hold(holder="b", lease_s=30)
    assert not beat_lease_hold(holder="a", lease_s=30)
    assert beat_lease_holder() == "b"


def test_a_lease_handed_back_is_free_at_once() -> None:
    assert beat_lease_hold(holder="a", lease_s=30)
    beat_lease_release(holder="b")  # not b's: nothing happens
    assert not beat_lease_hold(holder="b", lease_s=30)
    beat_lease_release(holder="a")
    assert beat_lease_hold(holder="b", lease_s=30)


def test_the_lease_runs_out_by_the_database_clock() -> None:
    assert beat_lease_hold(holder="a", lease_s=30)
    row = BeatLease.objects.get(name=LEASE_NAME)
    assert timedelta(seconds=29) < row.expires_at - row.renewed_at <= timedelta(seconds=30)


class _Counting(SingleBeatScheduler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sent: list[str] = []
        super().__init__(*args, **kwargs)

    def apply_entry(self, entry: Any, producer: Any = None) -> None:
        self.sent.append(entry.name)


def _scheduler(tmp_path: Path, name: str) -> _Counting:
    app = Celery("beat-lease-test", set_as_current=False)
    app.conf.beat_schedule = {"every-second": {"task": "t", "schedule": 1.0}}
    return _Counting(app=app, schedule_filename=str(tmp_path / f"{name}.db"))


def _ticks(scheduler: _Counting, n: int) -> None:
    for _ in range(n):
        # Its entry last ran two seconds ago: due now (the same as a tick a second later).
        for entry in scheduler.schedule.values():
            entry.last_run_at = timezone.now() - timedelta(seconds=2)
        scheduler._heap = None
        scheduler.tick()


# Committed, as in a beat process: the scheduler runs Django's per-request connection check.
@pytest.mark.django_db(transaction=True)
def test_of_two_schedulers_only_the_lease_holder_sends_and_the_other_takes_over_after_it(
    tmp_path: Path, settings: Any
) -> None:
    settings.BEAT_LEASE_S = 30
    first, second = _scheduler(tmp_path, "first"), _scheduler(tmp_path, "second")
    _ticks(first, 3)
    _ticks(second, 3)
    assert first.sent and not second.sent
    assert beat_lease_holder() == first.lease_holder
    first.close()  # a beat shutting down hands the lease back
    _ticks(second, 3)
    assert second.sent
    assert beat_lease_holder() == second.lease_holder
    second.close()
