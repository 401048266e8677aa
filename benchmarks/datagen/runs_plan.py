"""Standalone runs (an operator benchmarking two versions without a release), ids in time
order for everything the story made, the run events that name those ids, and the run
states that make the number of results come out exactly."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from types import SimpleNamespace

from benchmarks.datagen.audit import Journal, Who
from benchmarks.datagen.people import Cast
from benchmarks.datagen.plan import MICROSECOND, ReleasePlan, RoutePlan, RunPlan
from benchmarks.datagen.story import FAILURES, request_id
from benchmarks_app.models import Worker
from benchmarks_app.services.runs import _queue_for
from benchmarks_app.spec_build import default_engine_kind, workloads_of
from releases_app.services.gate_verdict import _failure_reason

CANCEL_REASONS = ("superseded by a newer version", "wrong lane", "started by mistake")


def standalone_runs(
    routes: list[RoutePlan], count: int, cast: Cast, rng: random.Random, end: datetime
) -> list[RunPlan]:
    """`count` runs spread over the routes (busier routes, more runs), each comparing the
    version active at the time with a recent one, as `run_create` would queue it."""
    weights = [len(r.versions) for r in routes]
    runs = []
    for route in rng.choices(routes, weights=weights, k=count):
        first = route.versions[0].created_at
        at = first + (end - timedelta(minutes=5) - first) * rng.random()
        known = [v for v in route.versions if v.created_at <= at]
        baseline = route.active_at(at) or known[0]
        others = [v for v in known[-4:] if v is not baseline] or [baseline]
        candidate = rng.choice(others)
        doc = candidate.stored.document
        lane = rng.choice(list(workloads_of(doc)))
        kind = default_engine_kind(doc)
        endpoints = None
        if kind == "managed" and rng.random() < 0.15:
            kind = "openai"
            model = doc["target"]["model"]
            endpoints = {
                arm: {
                    "base_url": f"http://{route.slug}-{host}.serving.internal:8000",
                    "model": model,
                    "server": "vllm",
                }
                for arm, host in (("baseline", "live"), ("candidate", "canary"))
            }
        target = None
        default_queue = _queue_for(engine_kind=kind, worker=None, pool=None)
        if rng.random() < 0.1:
            target = rng.choice(cast.serving(default_queue))
        queue = _queue_for(engine_kind=kind, worker=Worker(id=target.id) if target else None, pool=None)
        creator = rng.choice(cast.operators + cast.pipelines)
        run = RunPlan(
            id=0,
            route_id=0,
            route=route.slug,
            release_id=None,
            lane=lane,
            baseline=baseline,
            candidate=candidate,
            engine_kind=kind,
            endpoints=endpoints,
            target_worker_id=target.id if target else None,
            queue=queue,
            created_by=creator.id,
            created_at=at,
        )
        run.cancelled_by = creator.api.label  # who would cancel it, if it is cancelled
        start = at + timedelta(seconds=rng.uniform(5, 1200))
        finish = start + timedelta(minutes=rng.uniform(8, 150))
        if start > end:
            run.state = "queued"
        else:
            run.worker = target or rng.choice(cast.serving(queue))
            run.started_at = start
            run.state = "running" if finish > end else "pending"
            run.finished_at = finish if finish <= end else None
        runs.append(run)
    return runs


def hand_out_ids(routes: list[RoutePlan], runs: list[RunPlan]) -> list[ReleasePlan]:
    """Ids in creation order, as the database's sequences would have given them."""
    for i, route in enumerate(sorted(routes, key=lambda r: r.created_at), start=1):
        route.id = i
    versions = sorted((v for r in routes for v in r.versions), key=lambda v: v.created_at)
    by_slug = {r.slug: r for r in routes}
    for i, v in enumerate(versions, start=1):
        v.id, v.route_id = i, by_slug[v.route].id
    releases = sorted((x for r in routes for x in r.releases), key=lambda x: x.created_at)
    for i, release in enumerate(releases, start=1):
        release.id, release.route_id = i, by_slug[release.route].id
    for i, run in enumerate(sorted(runs, key=lambda r: r.created_at), start=1):
        run.id, run.route_id = i, by_slug[run.route].id
    return releases


def link_release_runs(releases: list[ReleasePlan]) -> None:
    """Release ids onto their runs, and what names them: cancel reasons, failure reasons."""
    for release in releases:
        runs = release.runs
        for run in runs:
            run.release_id = release.id
            if run.state == "cancelled":
                run.last_error = run.last_error.format(id=release.id)
        if release.state == "failed":
            rows = [
                SimpleNamespace(pk=r.id, lane=r.lane, state=r.state, last_error=r.last_error) for r in runs
            ]
            release.failure_reason = _failure_reason(rows)  # type: ignore[arg-type]
            release.transitions[-1].reason = release.failure_reason


def settle_standalone(runs: list[RunPlan], successes: int, rng: random.Random) -> None:
    """Exactly `successes` of the finished standalone runs succeed; the others failed,
    timed out or were cancelled by whoever started them."""
    pending = [r for r in runs if r.state == "pending"]
    if not 0 <= successes <= len(pending):
        raise ValueError(
            f"{successes} standalone results asked for, {len(pending)} standalone runs finished: "
            "adjust the scale (runs, results)"
        )
    winners = set(map(id, rng.sample(pending, successes)))
    for run in pending:
        if id(run) in winners:
            run.state = "succeeded"
            continue
        kind = rng.choices(("failed", "cancelled"), (70, 30))[0]
        if kind == "cancelled":
            run.state = "cancelled"
            run.last_error = rng.choice(CANCEL_REASONS)
        else:
            run.state, run.last_error = rng.choice(FAILURES)


def run_events(
    journal: Journal, runs: list[RunPlan], releases: list[ReleasePlan], people: dict[int, Who]
) -> None:
    """`run.create` (standalone), `release.runs.create` and `run.cancel`, as the services
    record them, now that the runs have ids."""
    rng = random.Random(7)
    for run in runs:
        if run.release_id is None:
            journal.record(
                run.created_at + MICROSECOND,
                people[run.created_by or 0],
                "run.create",
                "run",
                run.id,
                route=run.route,
                after={
                    "lane": run.lane,
                    "queue": run.queue,
                    "baseline": run.baseline.number,
                    "candidate": run.candidate.number,
                },
                request_id=request_id(rng),
            )
        if run.state == "cancelled":
            label = run.cancelled_by
            who = next((w for w in people.values() if w.label == label), Who.system(label))
            reason = run.last_error
            run.last_error = f"cancelled by {label}" + (f": {reason}" if reason else "")
            journal.record(
                run.finished_at or run.created_at,
                who,
                "run.cancel",
                "run",
                run.id,
                route=run.route,
                before={"state": "running" if run.started_at else "queued"},
                after={"state": "cancelled"},
                reason=reason,
            )
    by_id = {r.id: r for r in runs}
    for release in releases:
        if not release.run_ids:
            continue
        first = by_id[release.run_ids[0]]
        proposer = release.transitions[0].who
        journal.record(
            first.created_at + 2 * MICROSECOND,
            proposer,
            "release.runs.create",
            "release",
            release.id,
            route=release.route,
            after={
                "runs": [{"id": i, "lane": by_id[i].lane, "queue": by_id[i].queue} for i in release.run_ids]
            },
        )
