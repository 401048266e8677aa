"""Each route's life, act by act: versions uploaded, releases proposed and taken through
the app's own transitions (`releases_app.choices.TRANSITIONS`: a move the app would
refuse fails here too), approvals that activate and supersede, rollbacks to the
contract's `rollback.to`. Acts follow one another, so a route never has two open
releases; the last act of a route may leave its release open.

Ids are handed out afterwards in time order (`ids.py`), so nothing here writes an id
into an event; release events are rendered once the gate has run (`release_events.py`)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from benchmarks.datagen import documents
from benchmarks.datagen.audit import Journal, Who
from benchmarks.datagen.people import Cast, Person
from benchmarks.datagen.plan import (
    MICROSECOND,
    DecisionPlan,
    ReleasePlan,
    RoutePlan,
    RunPlan,
    Transition,
    VersionPlan,
)
from benchmarks_app.services.runs import _queue_for
from benchmarks_app.spec_build import default_engine_kind, workloads_of
from contracts_app.document import diff_documents, speculation_off
from releases_app.choices import TRANSITIONS
from releases_app.services.proposals import _needs_benchmark

PROPOSE_REASONS = ("nightly candidate", "tuned speculation", "new model revision", "policy update", "retry")
APPROVE_REASONS = ("gate passed, numbers look right", "reviewed the diff and the charts", "ok for production")
REJECT_REASONS = ("TPOT gain too small at our load", "output changed on greedy decoding", "wrong lane")
CANCEL_REASONS = ("superseded by a newer upload", "proposed by mistake", "waiting for the model team")
ROLLBACK_REASONS = ("p95 latency regression in production", "acceptance dropped on live traffic")
JUSTIFICATIONS = (
    "The miss is at concurrency 16 only, which this route never reaches in production.",
    "Accepted for the canary region; the full rollout waits for the rerun.",
)
FAILURES = (
    ("failed", "the vllm server exited with code 1 before it was ready: CUDA out of memory"),
    ("failed", "HTTP 500 from the engine on 9 of 32 requests at level 2; stopped"),
    ("failed", "the engine could not load the draft checkpoint (revision not found)"),
    ("timed_out", "the run hit its soft time limit (3240 s) during level 3"),
)


def request_id(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


class Story:
    def __init__(self, rng: random.Random, journal: Journal, cast: Cast, end: datetime) -> None:
        self.rng, self.journal, self.cast, self.end = rng, journal, cast, end
        self.release_runs: list[RunPlan] = []

    # -- versions --------------------------------------------------------------------
    def _uploader(self) -> Person:
        return self.rng.choice(self.cast.pipelines if self.rng.random() < 0.7 else self.cast.operators)

    def _version(
        self, route: RoutePlan, stored: documents.StoredDocument, at: datetime, who: Person, source: str
    ) -> VersionPlan:
        number = len(route.versions) + 1
        version = VersionPlan(0, 0, route.slug, number, stored, source, who.id, at)
        route.versions.append(version)
        actor = who.api if source != "generated" else who.browser
        self.journal.record(
            at + MICROSECOND,
            actor,
            "contract.uploaded",
            "contract_version",
            f"{route.slug}:v{number}",
            route=route.slug,
            after={"version": number, "digest": stored.digest, "method": stored.method},
            request_id=request_id(self.rng),
        )
        return version

    def upload(self, route: RoutePlan, at: datetime, budget: int) -> None:
        if len(route.versions) >= budget:
            return
        who = self._uploader()
        source = "yaml" if self.rng.random() < 0.8 else "json"
        if not route.versions:
            stored = documents.store(documents.first_document(route.slug, route.template, self.rng))
            route.description = stored.document.get("description", "")
            route.created_at = at
            self.journal.record(
                at,
                who.api,
                "route.created",
                "route",
                route.slug,
                route=route.slug,
                after={"slug": route.slug, "description": route.description},
                request_id=request_id(self.rng),
            )
        else:
            stored = documents.next_document(
                route.versions[-1].stored.document,
                route.template,
                self.rng,
                taken={v.stored.digest for v in route.versions},
                cosmetic=self.rng.random() < 0.12,
            )
        self._version(route, stored, at, who, source)

    # -- releases --------------------------------------------------------------------
    def _move(self, release: ReleasePlan, name: str, at: datetime, who: Any, **kw: Any) -> None:
        transition = TRANSITIONS[name]
        if release.state not in transition.sources:
            raise AssertionError(f"release story error: {name} from {release.state}")
        release.state = transition.target
        release.transitions.append(Transition(name, at, who, **kw))

    def _runs(self, route: RoutePlan, release: ReleasePlan, at: datetime) -> list[RunPlan]:
        doc = release.candidate.stored.document
        kind = default_engine_kind(doc)
        queue = _queue_for(engine_kind=kind, worker=None, pool=None)
        assert release.baseline is not None
        runs = [
            RunPlan(
                id=0,
                route_id=0,
                route=route.slug,
                release_id=None,
                lane=lane,
                baseline=release.baseline,
                candidate=release.candidate,
                engine_kind=kind,
                endpoints=None,
                target_worker_id=None,
                queue=queue,
                created_by=release.proposer.id,
                created_at=at,
                intent=release.intent,
            )
            for lane in workloads_of(doc)
        ]
        release.runs = runs
        self.release_runs += runs
        return runs

    def _run_through(
        self, run: RunPlan, start: datetime, finish: datetime, state: str, error: str = ""
    ) -> None:
        serving = self.cast.serving(run.queue)
        run.worker = self.rng.choice(serving)
        run.started_at, run.state = start, state
        run.finished_at = finish if state not in ("running", "queued") else None
        run.last_error = error

    def propose(self, route: RoutePlan, at: datetime, window_end: datetime, *, last: bool) -> None:
        rng = self.rng
        active = route.active_version
        candidate = next(v for v in reversed(route.versions) if v is not active)
        changes = (
            [c.as_dict() for c in diff_documents(active.stored.document, candidate.stored.document)]
            if active is not None
            else []
        )
        proposer = rng.choice(self.cast.pipelines if rng.random() < 0.6 else self.cast.operators)
        release = ReleasePlan(
            id=0,
            route_id=0,
            route=route.slug,
            baseline=active,
            candidate=candidate,
            proposer=proposer,
            created_at=at,
            diff=changes,
            reason=rng.choice(PROPOSE_REASONS),
            request_id=request_id(rng),
        )
        route.releases.append(release)
        who = proposer.api
        release.transitions.append(Transition("propose", at, who, release.reason, release.request_id))
        span = min(window_end - at, timedelta(days=rng.uniform(0.1, 3))) * 0.9
        approver = rng.choice([p for p in self.cast.approvers if p.id != proposer.id])
        needs = _needs_benchmark(active, changes)  # type: ignore[arg-type]
        open_ = last and active is not None and rng.random() < 0.6
        decided = at + span * rng.uniform(0.5, 0.8)
        if not needs:
            self._move(release, "skip_benchmark", at + MICROSECOND, who, request_id=release.request_id)
            if open_:
                return
            outcome = (
                "approve" if active is None else rng.choices(("approve", "reject", "cancel"), (85, 8, 7))[0]
            )
            release.intent = "good"
            self._decide(route, release, outcome, decided, approver)
            self._maybe_roll_back(route, release, decided + span * 0.1, approver)
            return
        self._move(release, "start_benchmark", at + MICROSECOND, who, request_id=release.request_id)
        outcome = rng.choices(("gated", "failed", "cancel", "reject"), (88, 8, 3, 1))[0]
        if open_:
            outcome = rng.choice(("open_benchmarking", "open_review"))
        if outcome == "gated":
            outcome = rng.choices(("approve", "reject", "cancel"), (68, 22, 10))[0]
            release.intent = {"approve": "good", "reject": "poor"}.get(outcome, "mixed")
        runs = self._runs(route, release, at + 2 * MICROSECOND)
        started = at + span * rng.uniform(0.01, 0.05)
        finished = at + span * rng.uniform(0.2, 0.45)
        if outcome in ("approve", "reject", "cancel", "open_review"):
            for run in runs:
                self._run_through(run, started, finished + timedelta(seconds=rng.uniform(0, 60)), "succeeded")
            release.gated = True
            self._move(
                release,
                "complete_gate",
                max(r.finished_at for r in runs if r.finished_at) + timedelta(seconds=rng.uniform(1, 30)),
                self._system(),
            )
            if outcome != "open_review":
                self._decide(route, release, outcome, decided, approver)
                self._maybe_roll_back(route, release, decided + span * 0.1, approver)
        elif outcome == "failed":
            broken = rng.sample(runs, rng.randint(1, len(runs)))
            for run in runs:
                state, error = rng.choice(FAILURES) if run in broken else ("succeeded", "")
                self._run_through(run, started, finished, state, error)
            # The reason names run ids: rendered once they are handed out.
            self._move(release, "fail", finished + timedelta(seconds=rng.uniform(1, 30)), self._system())
        elif outcome == "open_benchmarking":
            for i, run in enumerate(runs):
                if i < len(runs) - 1 and rng.random() < 0.5:
                    self._run_through(run, started, finished, "succeeded")
                elif self.end - started > timedelta(minutes=2) and rng.random() < 0.7:
                    self._run_through(run, started, started, "running")
        else:  # cancelled or rejected while benchmarking: its runs are cancelled with it
            for i, run in enumerate(runs):
                if i == 0 and len(runs) > 1 and rng.random() < 0.5:
                    self._run_through(run, started, finished, "succeeded")
                elif rng.random() < 0.6:
                    self._run_through(run, started, started, "running")
            self._decide(route, release, outcome, decided, approver, runs)

    def _system(self) -> Who:
        """`release_conclude` acts as `Actor.system("benchmarks")`."""
        return Who.system("benchmarks")

    def _decide(
        self,
        route: RoutePlan,
        release: ReleasePlan,
        outcome: str,
        at: datetime,
        approver: Person,
        runs: list[RunPlan] = (),  # type: ignore[assignment]
    ) -> None:
        rng = self.rng
        if outcome == "approve":
            reason, rid = rng.choice(APPROVE_REASONS), request_id(rng)
            release.decisions.append(
                DecisionPlan("approve", at, approver, reason, rng.choice(JUSTIFICATIONS))
            )
            # One request: approve (+ override), supersede the active release, activate.
            self._move(release, "approve", at + MICROSECOND, approver.browser, reason=reason, request_id=rid)
            previous = next((r for r in route.releases if r.state == "active"), None)
            if previous is not None:
                self._move(
                    previous,
                    "supersede",
                    at + 3 * MICROSECOND,
                    approver.browser,
                    request_id=rid,
                    extra_after={"by_release": release},
                )
            old = route.active_version
            self._activate(route, release.candidate, at + 4 * MICROSECOND)
            self._move(
                release,
                "activate",
                at + 4 * MICROSECOND,
                approver.browser,
                request_id=rid,
                extra_after={
                    "route_active_version": release.candidate.number,
                    "previous_version": old.number if old else None,
                },
            )
            return
        who = approver if outcome == "reject" or rng.random() < 0.5 else release.proposer
        reason = rng.choice(REJECT_REASONS if outcome == "reject" else CANCEL_REASONS)
        # Runs still queued or running are cancelled first (release_runs_cancel).
        for run in runs:
            if run.state in ("queued", "running"):
                run.state, run.finished_at, run.cancelled_by = "cancelled", at, who.api.label
                run.last_error = f"release {{id}} stopped: {reason}"  # the id is known later
        self._move(release, outcome, at + MICROSECOND, who.api, reason=reason, request_id=request_id(rng))
        release.decisions.append(DecisionPlan(outcome, at + 2 * MICROSECOND, who, reason))

    def _activate(self, route: RoutePlan, version: VersionPlan, at: datetime) -> None:
        route.active_version, route.active_since = version, at
        route.active_history.append((at, version))

    def _maybe_roll_back(
        self, route: RoutePlan, release: ReleasePlan, at: datetime, approver: Person
    ) -> None:
        if release.state != "active" or self.rng.random() >= 0.06:
            return
        target_name = str((release.candidate.stored.document.get("rollback") or {}).get("to", "previous"))
        if target_name == "previous":
            target = release.baseline
        elif target_name.startswith("version:"):
            target = route.versions[int(target_name.split(":")[1]) - 1]
        else:
            target = self._speculation_off(route, release, at, approver)
        if target is None or target is route.active_version:
            return  # the app refuses it (409): this story doesn't try
        old = route.active_version
        self._activate(route, target, at + 2 * MICROSECOND)
        reason = self.rng.choice(ROLLBACK_REASONS)
        release.decisions.append(DecisionPlan("rollback", at + 3 * MICROSECOND, approver, reason))
        self._move(
            release,
            "rollback",
            at + 4 * MICROSECOND,
            approver.browser,
            reason=reason,
            request_id=request_id(self.rng),
            extra_after={
                "rollback_to": target_name,
                "route_active_version": target.number,
                "previous_version": old.number if old else None,
            },
        )

    def _speculation_off(
        self, route: RoutePlan, release: ReleasePlan, at: datetime, approver: Person
    ) -> VersionPlan | None:
        stored = documents.store(speculation_off(release.candidate.stored.document))
        existing = next((v for v in route.versions if v.stored.digest == stored.digest), None)
        if existing is not None:
            return existing
        if len(route.versions) >= self.budget:
            return None
        return self._version(route, stored, at, approver, "generated")

    # -- a route ---------------------------------------------------------------------
    def tell(self, route: RoutePlan, start: datetime, versions: int, releases: int) -> None:
        self.budget = versions
        rest = ["U"] * (versions - 2) + ["P"] * (releases - 1)
        self.rng.shuffle(rest)
        if self.rng.random() < 0.3 and "P" in rest and rest[-1] != "P":
            rest.remove("P")  # some routes end on a release still under way
            rest.append("P")
        acts = ["U", "P", "U", *rest]
        latest = self.end - timedelta(hours=1)
        times = [start, *sorted(start + (latest - start) * self.rng.random() for _ in acts[1:])]
        for i, act in enumerate(acts):
            window_end = times[i + 1] if i + 1 < len(acts) else self.end
            if act == "U":
                self.upload(route, times[i], versions)
            else:
                self.propose(route, times[i], window_end, last=i == len(acts) - 1)
