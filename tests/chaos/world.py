"""The system the chaos step breaks, all of it real: a gunicorn web process (the agents' API;
the test's own calls go to the app in-process), a persistent private redis-server, two
`specpact-worker run` agents (the GPU workers), two control-plane Celery workers and beat
(the sweep, the outbox relay and the periodic conclusion on short intervals), and two
vLLM-shaped engine emulators as a route's live endpoints.

A round is one release of the route benchmarked on those endpoints: proposed through the
API, its one run dispatched through the outbox to `pool.any`, measured by an agent, its
result uploaded, its conclusion run on a control-plane worker; then rejected, so that the
route is free for the next round. The faults (tests/chaos/test_faults.py) strike during a
round; `World.settle` lets the system recover as production would (beat's tasks, nothing
called by hand) and classifies what became of the round's run and release."""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit_app.models import AuditEvent
from audit_app.verification import audit_status
from benchmarks_app.choices import ACTIVE_STATES, FINISHED_STATES, RunState
from benchmarks_app.models import OutboxMessage, Run, RunResult
from live_app.models import Endpoint
from releases_app.models import Release
from releases_app.services import release_cancel, release_reject
from releases_app.services.endpoints import endpoint_change, endpoint_register
from tests.support.actors import as_caller
from tests.support.launcher import wait_for
from tests.support.processes import Agent, Beat, ControlPlaneWorker, Gunicorn, RedisServer

# How long a round may take to settle (the sweep needs WORKER_OFFLINE_AFTER_S to see a dead
# worker, a killed conclusion waits out the visibility timeout) before it counts as stuck.
SETTLE_S = 60
RECEIVED = re.compile(rb"Task releases_app\.conclude_release\[[^\]]+\] received")
DONE = re.compile(rb"Task releases_app\.conclude_release\[[^\]]+\] succeeded")
_VERDICTS = ("release.gate_completed", "release.fail", "release.failed")


@dataclass
class Tally:
    """What became of one fault's rounds: one count per run, by its end."""

    fault: str
    finished: int = 0  # succeeded on its first delivery
    failed: int = 0  # failed (or timed out) with its reason in words
    redelivered: int = 0  # succeeded after a redelivery or a requeued attempt
    stuck: int = 0  # still active after SETTLE_S, or ended without a reason
    double: int = 0  # a result counted twice, or a release concluded twice
    notes: list[str] = field(default_factory=list)
    drained: bool = False  # the outbox empty once the fault's rounds were over

    def row(self) -> str:
        return (
            f"{self.fault:<28} {self.finished:>8} {self.failed:>6} {self.redelivered:>11} "
            f"{self.stuck:>5} {self.double:>14}"
        )


HEADER = (
    f"{'fault':<28} {'finished':>8} {'failed':>6} {'redelivered':>11} {'stuck':>5} {'double-counted':>14}"
)


def chaos_seed() -> tuple[int, int]:
    """(seed, repetitions): CHAOS_SEED (a random one when unset; printed, so a failure can
    be replayed) and CHAOS_REPEAT from the environment."""
    seed = int(os.environ.get("CHAOS_SEED") or random.SystemRandom().randrange(1, 10**6))
    repeat = int(os.environ.get("CHAOS_REPEAT") or 20)
    return seed, repeat


def chaos_rng(seed: int, fault: str) -> random.Random:
    """Each fault draws from its own stream: replaying one fault alone (CHAOS_FAULTS)
    draws the same moments."""
    return random.Random(f"{seed}:{fault}")


class World:
    def __init__(
        self,
        *,
        home: Path,
        url: str,
        redis: RedisServer,
        route: Any,
        candidate_number: int,
        canary_url: str,
        proposer: Any,
        operator: Any,
        approver: Any,
        bootstrap: str,
        control_env: dict[str, str],
        web: Gunicorn | None = None,
    ) -> None:
        self.home, self.url, self.redis, self.route = home, url, redis, route
        self.candidate_number, self.canary_url = candidate_number, canary_url
        self.proposer, self.operator, self.approver = proposer, operator, approver
        self.bootstrap, self.control_env, self.web = bootstrap, control_env, web
        self.agents: dict[str, Agent] = {}
        self.control: list[ControlPlaneWorker] = []
        self.beat: Beat | None = None
        self._started = 0

    # Processes.

    def start(self) -> None:
        for name in ("gpu-1", "gpu-2"):
            self.agents[name] = Agent(self.home / name, self.url, self.bootstrap, name)
        self.control = [self._control_plane(), self._control_plane()]
        self.beat = Beat(self.home / "beat", self.redis.url, self.control_env)
        for agent in self.agents.values():
            agent.worker_id()
            agent.wait_ready()
        for worker in self.control:
            worker.wait_ready()

    def _control_plane(self) -> ControlPlaneWorker:
        self._started += 1
        return ControlPlaneWorker(self.home / f"control-{self._started}", self.redis.url, self.control_env)

    def stop(self) -> None:
        others = [p for p in (self.beat, self.web) if p is not None]
        for process in [*self.agents.values(), *self.control, *others]:
            process.stop()

    def agent_of(self, run: Run) -> Agent:
        ids = {name: agent.worker_id() for name, agent in self.agents.items()}
        return next(self.agents[name] for name, pk in ids.items() if pk == run.worker_id)

    def restart_agent(self, agent: Agent) -> Agent:
        """The same machine back (its credentials kept in its home). Not waited for: the
        other agent takes the next round's run meanwhile, or this one once it is up."""
        fresh = Agent(agent.home, self.url, self.bootstrap, agent.name)
        self.agents[agent.name] = fresh
        return fresh

    def replace_control_plane(self, killed: ControlPlaneWorker) -> None:
        """A new control-plane worker in the killed one's place (not waited for: the other
        one carries on meanwhile)."""
        self.control = [w for w in self.control if w is not killed] + [self._control_plane()]

    # Rounds.

    def propose(self) -> Release:
        """A release on the live endpoints, its benchmark started: its run is dispatched."""
        body = {
            "route": self.route.slug,
            "candidate_version": self.candidate_number,
            "endpoints": {"baseline": "prod-eu", "candidate": "canary"},
        }
        proposer = as_caller("operator", self.proposer).client()
        response = proposer.post("/api/v1/releases/", body, format="json")
        assert response.status_code == 201, response.content
        release = Release.objects.get(pk=response.json()["id"])
        # The canary serves the release's candidate (registered at the first round).
        canary = Endpoint.objects.filter(route=self.route, name="canary").first()
        expects = f"release:{release.pk}"
        if canary is None:
            endpoint_register(
                route=self.route, name="canary", base_url=self.canary_url, engine="vllm",
                expects=expects, actor=self.operator,
            )  # fmt: skip
        else:
            endpoint_change(endpoint=canary, expects=expects, actor=self.operator)
        operator = as_caller("operator", self.operator).client()
        started = operator.post(f"/api/v1/releases/{release.pk}/benchmark")
        assert started.status_code == 200, started.content
        return release

    @staticmethod
    def run_of(release: Release) -> Run:
        return Run.objects.get(release=release)

    @staticmethod
    def wait_running(run: Run, timeout_s: float = 60) -> Run:
        return wait_for(  # type: ignore[no-any-return]
            lambda: Run.objects.filter(pk=run.pk, state=RunState.RUNNING).first(),
            timeout_s,
            f"run {run.pk} to be claimed",
            0.05,
        )

    @staticmethod
    def wait_ended(run: Run, timeout_s: float = 60) -> Run:
        return wait_for(  # type: ignore[no-any-return]
            lambda: Run.objects.filter(pk=run.pk, state__in=list(FINISHED_STATES)).first(),
            timeout_s,
            f"run {run.pk} to end",
            0.05,
        )

    def settle(self, release: Release, tally: Tally) -> None:
        """Wait (SETTLE_S at most) for the round's release to leave `benchmarking`, count
        what became of it and its run, and close it so that the route is free again."""

        def concluded() -> Release | None:
            fresh = Release.objects.get(pk=release.pk)
            return fresh if fresh.state != "benchmarking" else None

        try:
            done = wait_for(concluded, SETTLE_S, f"release {release.pk} to conclude", 0.1)
        except AssertionError:
            done = None
        self._count(release, done, tally)
        fresh = Release.objects.get(pk=release.pk)
        if fresh.state == "awaiting_review":
            release_reject(release=fresh, actor=self.approver, reason="chaos round done")
        elif fresh.state in {"benchmarking", "proposed"}:  # stuck: counted; free the route
            release_cancel(release=fresh, actor=self.operator, reason="stuck in the chaos step")

    def _count(self, release: Release, done: Release | None, tally: Tally) -> None:
        run = self.run_of(release)
        events = [h["event"] for h in run.history]
        results = RunResult.objects.filter(run=run)
        verdicts = AuditEvent.objects.for_object("release", release.pk).filter(action__in=_VERDICTS).count()
        ends = sum(1 for e in events if e in {"succeeded", "failed", "timed_out", "cancelled"})
        if (
            results.count() > 1
            or any(r.attempt != run.attempt for r in results)
            or (run.state == RunState.SUCCEEDED) != results.exists()
            or ends > 1
            or verdicts > 1
        ):
            tally.double += 1
            tally.notes.append(f"run {run.pk}: {events}, {results.count()} results, {verdicts} verdicts")
        if done is None or run.state in ACTIVE_STATES:
            tally.stuck += 1
            tally.notes.append(f"run {run.pk} {run.state} {events}; release {release.pk} did not conclude")
        elif done.state == "failed" and not done.failure_reason.strip():
            tally.stuck += 1
            tally.notes.append(f"release {release.pk} failed without a reason")
        elif run.state == RunState.SUCCEEDED:
            if {"requeued", "restarted"} & set(events):
                tally.redelivered += 1
            else:
                tally.finished += 1
        elif run.last_error.strip() and done.state == "failed":
            tally.failed += 1
            tally.notes.append(f"run {run.pk} {run.state}: {run.last_error[:160]}")
        else:
            tally.stuck += 1
            tally.notes.append(f"run {run.pk} {run.state} without a reason, release {done.state}")

    # The invariants of the whole step.

    def outbox_drained(self, timeout_s: float = 30) -> bool:
        def drained() -> bool:
            pending = OutboxMessage.objects.filter(published_at__isnull=True, discarded_at__isnull=True)
            return not pending.exists()

        try:
            wait_for(drained, timeout_s, "the outbox to drain", 0.2)
        except AssertionError:
            return False
        return True


def audit_chain_valid() -> bool:
    return bool(audit_status(full=True)["valid"])


def kill_9(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it had ended by itself
        os.kill(pid, signal.SIGKILL)


def report(tallies: list[Tally], seed: int, repeat: int, logs: Callable[[], str]) -> None:
    """Print the table (a row per fault, its notes below); assert none stuck or counted
    twice, every round accounted for, the outbox drained after each fault, the audit chain
    sound at the end."""
    chain = audit_chain_valid()
    print(f"\nchaos step: CHAOS_SEED={seed} CHAOS_REPEAT={repeat}")
    print(HEADER)
    for tally in tallies:
        print(tally.row())
        for note in tally.notes:
            print("  ", note)
    print(f"audit chain verifies: {chain}")
    replay = f"(replay: CHAOS_SEED={seed} CHAOS_REPEAT={repeat})"
    for tally in tallies:
        assert tally.stuck == 0 and tally.double == 0, f"{tally.row()} {replay}\n{logs()}"
        assert tally.finished + tally.failed + tally.redelivered == repeat, tally.row()
        assert tally.drained, f"{tally.fault}: outbox not drained {replay}"
    assert chain, f"audit chain does not verify {replay}"
