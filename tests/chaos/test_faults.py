"""Faults on purpose (issue 26, point 4), each repeated CHAOS_REPEAT times at moments drawn
from CHAOS_SEED (printed) against one running system (tests/chaos/world.py): the faults run
one after the other, so the processes are started once and only a killed one again. After
each round, every run ended succeeded, failed with its reason, or redelivered and then
succeeded - never stuck, never counted twice - and its release reached a verdict or a
stated failure; after each fault the outbox has drained; at the end the audit chain
verifies. The table: a row per fault, runs finished / failed / redelivered / stuck /
double-counted. CHAOS_FAULTS=name,name runs some of them (a replay)."""

from __future__ import annotations

import os
import random
import re
import subprocess
import time
from collections.abc import Callable

import pytest
from django.db import connections

from tests.chaos.world import DONE, RECEIVED, SETTLE_S, Tally, World, chaos_rng, chaos_seed, kill_9, report
from tests.support.processes import Gunicorn

pytestmark = [pytest.mark.chaos, pytest.mark.django_db(transaction=True)]

Fault = Callable[[World, random.Random, int], Tally]


def gpu_worker_kill(world: World, rng: random.Random, repeat: int) -> Tally:
    """kill -9 of the run's task process (the message goes back: late ack, reject on
    worker lost; the agent stops reporting the run, so the sweep requeues it) or of the
    whole agent with its pool (the machine is gone: the sweep requeues the run on the
    other agent), at a random moment of the run; a killed agent is started again."""
    tally = Tally("GPU worker kill -9")
    for _ in range(repeat):
        release = world.propose()
        run = world.wait_running(world.run_of(release))
        agent = world.agent_of(run)
        whole = rng.random() < 0.5
        time.sleep(rng.uniform(0.0, 2.0))
        if whole:
            agent.kill_all()
        else:
            for child in agent.children():
                kill_9(child)
        world.settle(release, tally)
        if whole:
            world.restart_agent(agent)
    return tally


def control_plane_kill(world: World, rng: random.Random, repeat: int) -> Tally:
    """kill -9 of a control-plane worker at a random moment after the run's result landed:
    before its conclusion arrives, while the gate and the endpoints' re-probe run, or
    after. A conclusion cut short is finished by the periodic pass for releases left
    behind; a replacement worker starts meanwhile, not waited for (the survivor carries on)."""
    tally = Tally("control-plane kill -9")
    mid = 0
    for _ in range(repeat):
        release = world.propose()
        world.wait_ended(world.run_of(release))
        time.sleep(rng.uniform(0.0, 0.6))
        busy = [
            w for w in world.control
            if len(RECEIVED.findall(w.log.read_bytes())) > len(DONE.findall(w.log.read_bytes()))
        ]  # fmt: skip
        victim = busy[0] if busy else rng.choice(world.control)
        mid += bool(busy)
        victim.kill_all()
        world.replace_control_plane(victim)
        world.settle(release, tally)
    tally.notes.append(f"{mid} of {repeat} kills hit a worker whose log showed a conclusion under way")
    return tally


def redis_restart(world: World, rng: random.Random, repeat: int) -> Tally:
    """The broker stopped and started again: while a release's run is dispatched (the
    outbox holds it until the relay can publish), or while the run reports progress and
    its result (the workers reconnect)."""
    tally = Tally("Redis restart")
    for i in range(repeat):
        if i % 2 == 0:  # during dispatch
            world.redis.stop()
            release = world.propose()
            time.sleep(rng.uniform(0.0, 1.5))
            world.redis.start()
        else:  # during progress
            release = world.propose()
            world.wait_running(world.run_of(release))
            time.sleep(rng.uniform(0.0, 1.5))
            world.redis.stop()
            time.sleep(rng.uniform(0.2, 1.5))
            world.redis.start()
        world.settle(release, tally)
    return tally


# The agents' warnings for a request that got no answer (worker/agent/heartbeat.py, task.py).
CUT_SHORT = re.compile(rb"heartbeat not accepted|progress of run \d+ not recorded|control plane unreachable")


def _wait_busy(web: Gunicorn, within_s: float) -> list[int]:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        busy = web.busy_workers()
        if busy:
            return busy
        time.sleep(0.005)
    return []


def web_kill(world: World, rng: random.Random, repeat: int) -> Tally:
    """kill -9 of a gunicorn worker at a random moment of a run, the first one seen holding
    a request (the agents heartbeat, claim, report progress and upload through it): the
    request gets no answer, the agent sends it again (the master respawns a worker), the
    result counts once."""
    assert world.web is not None
    tally = Tally("web process kill -9")
    mid = 0
    before = sum(len(CUT_SHORT.findall(a.log.read_bytes())) for a in world.agents.values())
    for _ in range(repeat):
        release = world.propose()
        world.wait_running(world.run_of(release))
        time.sleep(rng.uniform(0.0, 1.5))
        busy = _wait_busy(world.web, 3.0)  # 3 s at most, else any worker
        mid += bool(busy)
        kill_9(busy[0] if busy else rng.choice(world.web.workers()))
        world.settle(release, tally)
    seen = sum(len(CUT_SHORT.findall(a.log.read_bytes())) for a in world.agents.values()) - before
    tally.notes.append(f"{mid} of {repeat} kills hit a worker holding a request")
    tally.notes.append(f"{seen} heartbeat/progress/upload requests the agents logged as cut short")
    return tally


def _restart_postgres(data: str, bindir: str) -> None:
    """`pg_ctl restart -m fast`: every connection cut, the server back a second later with
    the options it had (as the postgres OS user: PostgreSQL will not run as root)."""
    argv = [f"{bindir}/pg_ctl", "-D", data, "-w", "-t", "60", "-m", "fast", "restart"]
    owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run([*owner, *argv], check=True, stdout=subprocess.DEVNULL)


def postgres_restart(world: World, rng: random.Random, repeat: int) -> Tally:
    """The database restarted at a random moment near a run's end, as its result is
    uploaded: a request cut short answers 503 and is sent again; the control plane's
    processes reconnect. Only on the throwaway cluster of tests/chaos/throwaway_postgres.py
    (`make test-chaos` runs the step on it), never on a shared server."""
    data, bindir = os.environ["CHAOS_PG_DATA"], os.environ["CHAOS_PG_BIN"]
    tally = Tally("PostgreSQL restart")
    for _ in range(repeat):
        release = world.propose()
        world.wait_running(world.run_of(release))
        time.sleep(rng.uniform(0.3, 2.5))
        _restart_postgres(data, bindir)
        connections.close_all()  # this process's connections were cut too
        world.settle(release, tally)
    return tally


FAULTS: dict[str, Fault] = {
    "gpu-worker-kill-9": gpu_worker_kill,
    "control-plane-kill-9": control_plane_kill,
    "redis-restart": redis_restart,
    "web-kill-9": web_kill,
    "postgres-restart": postgres_restart,
}


def _chosen() -> list[str]:
    named = [n.strip() for n in os.environ.get("CHAOS_FAULTS", "").split(",") if n.strip()]
    unknown = set(named) - set(FAULTS)
    assert not unknown, f"CHAOS_FAULTS: no fault {sorted(unknown)}; the faults: {list(FAULTS)}"
    chosen = named or list(FAULTS)
    if "postgres-restart" in chosen and not os.environ.get("CHAOS_PG_DATA"):
        assert not named, "postgres-restart needs tests/chaos/throwaway_postgres.py (make test-chaos)"
        print("\npostgres-restart: not run (it needs the throwaway cluster: make test-chaos)")
        chosen.remove("postgres-restart")
    return chosen


def _logs(world: World) -> str:
    parts = [f"--- {a.name}\n{a.log.read_text()[-3000:]}" for a in world.agents.values()]
    parts += [f"--- {w.log}\n{w.log.read_text()[-3000:]}" for w in world.control]
    return "\n".join(parts)


# The suite's 600 s per test (pyproject) does not fit a step that grows with CHAOS_REPEAT:
# its bound is the start-up plus every round settling at its slowest (SETTLE_S and the fault).
STEP_TIMEOUT_S = 300 + len(FAULTS) * int(os.environ.get("CHAOS_REPEAT") or 20) * (SETTLE_S + 15)


@pytest.mark.timeout(STEP_TIMEOUT_S)
@pytest.mark.parametrize("world", ["gunicorn"], indirect=True)
def test_faults_on_purpose(world: World) -> None:
    seed, repeat = chaos_seed()
    print(f"\nchaos step: CHAOS_SEED={seed} CHAOS_REPEAT={repeat}")
    tallies = []
    for name in _chosen():
        started = time.monotonic()
        tally = FAULTS[name](world, chaos_rng(seed, name), repeat)
        tally.drained = world.outbox_drained()
        tally.notes.append(f"{time.monotonic() - started:.0f} s; outbox drained: {tally.drained}")
        print(tally.row())
        tallies.append(tally)
    report(tallies, seed, repeat, lambda: _logs(world))
