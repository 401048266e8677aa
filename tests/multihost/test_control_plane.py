"""Two control-plane workers and two beats on one broker (issue 26, point 3): a task sent
once runs once, on exactly one worker; the schedule is sent by one beat at a time, and
the other takes over when that one dies (kernel/beat.py's lease)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from kernel.beat import beat_lease_holder
from kernel.tasks import PURGE_IDEMPOTENCY_TASK
from specpact.celery import app
from tests.multihost.conftest import Fleet
from tests.support.launcher import wait_for
from tests.support.processes import Beat

pytestmark = pytest.mark.integration

SENT = re.compile(rb"Scheduler: Sending due task ")


def _ran(log: Path, task_id: str) -> bool:
    return f"[{task_id}] succeeded".encode() in log.read_bytes()


def test_a_task_sent_once_runs_once_on_exactly_one_of_the_two_workers(
    transactional_db: None, fleet: Fleet
) -> None:
    ids = [str(uuid.uuid4()) for _ in range(12)]
    with app.connection_for_write(fleet.redis.url) as connection:
        for task_id in ids:
            app.send_task(PURGE_IDEMPOTENCY_TASK, task_id=task_id, connection=connection)
    logs = [worker.log for worker in fleet.control]
    wait_for(lambda: all(any(_ran(log, t) for log in logs) for t in ids), 60, "the tasks to run")
    for task_id in ids:
        received = [log.read_bytes().count(f"[{task_id}] received".encode()) for log in logs]
        assert sorted(received) == [0, 1], (task_id, received)
    per_worker = [sum(_ran(log, t) for t in ids) for log in logs]
    print(f"tasks run per control-plane worker: {per_worker}")
    assert sum(per_worker) == len(ids)


def _sends(beat: Beat) -> int:
    return len(SENT.findall(beat.log.read_bytes()))


def test_of_two_beats_one_sends_the_schedule_and_the_other_takes_over_when_it_dies(
    transactional_db: None, fleet: Fleet, tmp_path: Path
) -> None:
    # A 6 s lease (renewed every 2 s: a holder slowed by a busy machine keeps it) and the
    # outbox relay every second: a schedule due all the time, so a second sender would show.
    env = {**fleet.env, "BEAT_LEASE_S": "6", "OUTBOX_RELAY_INTERVAL_S": "1", "RUN_SWEEP_INTERVAL_S": "1"}
    beats = [Beat(tmp_path / f"beat-{n}", fleet.redis.url, env) for n in (1, 2)]
    try:
        holder = wait_for(lambda: next((b for b in beats if _sends(b) >= 5), None), 90, "a beat to send")
        standby = next(b for b in beats if b is not holder)
        assert standby.proc.poll() is None, standby.log.read_text()
        assert _sends(standby) == 0, standby.log.read_text()[-3000:]
        assert str(holder.proc.pid) in (beat_lease_holder() or "").split(":")
        # The holder dies (no shutdown: its lease runs out); the standby takes over.
        holder.kill_all()
        after = wait_for(lambda: _sends(standby) >= 3 and _sends(standby), 60, "the standby to take over")
        assert str(standby.proc.pid) in (beat_lease_holder() or "").split(":")
        assert after >= 3 and b"holds the schedule's lease" in standby.log.read_bytes()
    finally:
        for beat in beats:
            beat.stop()
