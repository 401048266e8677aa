"""The whole generation, in three phases:

1. plan (this process): people, workers, every route's story, run states, ids; then COPY
   users, tokens, workers, routes, versions and releases in one transaction;
2. runs and results (`jobs` worker processes, COPY per batch): specs, runs, outbox
   messages, result payloads and aggregates, the gate of each benchmarked release;
3. finish (this process): the gates' verdicts onto their releases, decisions, every audit
   event chained in time order, a year of live probes (`live.py`, written by PostgreSQL),
   sequences moved on, ANALYZE.

The database must be freshly migrated and empty: the audit trail is append-only (the
trigger stays on), so a second fill can't be undone — drop and recreate the database."""

from __future__ import annotations

import json
import multiprocessing
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from django.contrib.auth import get_user_model
from django.db.models import Model

from accounts_app.models import ApiToken, UserRole
from audit_app.models import AuditEvent
from benchmarks.datagen import documents
from benchmarks.datagen.audit import Journal, chained_rows
from benchmarks.datagen.live import write_live_year
from benchmarks.datagen.people import Cast, CastBuilder
from benchmarks.datagen.pgcopy import copy_rows, reset_sequences
from benchmarks.datagen.plan import ReleasePlan, RoutePlan, RunPlan
from benchmarks.datagen.release_events import decision_rows, record_events, release_row
from benchmarks.datagen.runs_plan import (
    hand_out_ids,
    link_release_runs,
    run_events,
    settle_standalone,
    standalone_runs,
)
from benchmarks.datagen.scale import Scale
from benchmarks.datagen.story import Story
from benchmarks.datagen.units import Unit, UnitsDone, close_connection, write_units
from benchmarks_app.models import BootstrapToken, OutboxMessage, Run, RunResult, Worker, WorkerCredential
from contracts_app.models import ContractVersion, Route
from releases_app.models import Decision, Release

TRIGGERS = ("audit_event_append_only", "audit_event_no_truncate", "contract_version_immutable")


@dataclass
class Report:
    scale: str
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    samples: int = 0
    validated: int = 0
    payload_bytes: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    release_states: dict[str, int] = field(default_factory=dict)
    chain: dict[str, Any] = field(default_factory=dict)
    triggers: list[str] = field(default_factory=list)


def allocate(total: int, n: int, rng: random.Random, minimum: int) -> list[int]:
    """`total` split over `n` (lognormal shares, at least `minimum` each), summing exactly."""
    weights = [rng.lognormvariate(0, 0.5) for _ in range(n)]
    spare = total - minimum * n
    shares = [spare * w / sum(weights) for w in weights]
    out = [minimum + int(s) for s in shares]
    for i in sorted(range(n), key=lambda i: shares[i] - int(shares[i]), reverse=True)[: total - sum(out)]:
        out[i] += 1
    return out


def _capped(counts: list[int], caps: list[int]) -> list[int]:
    """`counts` with none above its cap, the excess moved to those below theirs (same sum)."""
    out = [min(c, cap) for c, cap in zip(counts, caps, strict=True)]
    excess = sum(counts) - sum(out)
    while excess > 0:
        room = [i for i in range(len(out)) if out[i] < caps[i]]
        if not room:
            raise ValueError("more releases than the versions can carry: raise versions or lower releases")
        for i in room[:excess]:
            out[i] += 1
        excess = sum(counts) - sum(out)
    return out


def _refuse_unless_empty(conn: psycopg.Connection[Any]) -> None:
    for model in (get_user_model(), Route, AuditEvent):
        table = model._meta.db_table
        row = conn.execute(f'SELECT EXISTS (SELECT 1 FROM "{table}")').fetchone()  # noqa: S608 (a model's table)
        if row and row[0]:
            raise SystemExit(
                f"{table} is not empty: generate into a freshly migrated database (dropdb/createdb)"
            )


def _triggers(conn: psycopg.Connection[Any]) -> list[str]:
    rows = conn.execute(
        "SELECT tgname FROM pg_trigger WHERE tgname = ANY(%s) AND tgenabled <> 'D' ORDER BY tgname",
        [list(TRIGGERS)],
    ).fetchall()
    return [r[0] for r in rows]


def plan(
    scale: Scale, seed: int, end: datetime
) -> tuple[Journal, Cast, CastBuilder, list[RoutePlan], list[RunPlan], list[ReleasePlan]]:
    rng = random.Random(seed)
    start = end - timedelta(days=scale.days)
    journal = Journal()
    builder = CastBuilder(rng, journal, start, end)
    cast = builder.build(scale)
    story = Story(rng, journal, cast, end)
    versions = allocate(scale.versions, scale.routes, rng, minimum=4)
    releases = _capped(allocate(scale.releases, scale.routes, rng, minimum=2), [v // 2 for v in versions])
    routes = []
    for i, (slug, template) in enumerate(documents.route_names(scale.routes)):
        route = RoutePlan(0, slug, template, "", start)
        routes.append(route)
        story.tell(route, start + (end - start) * rng.uniform(0.02, 0.35), versions[i], releases[i])
    alone = standalone_runs(routes, scale.runs - len(story.release_runs), cast, rng, end)
    runs = story.release_runs + alone
    release_list = hand_out_ids(routes, runs)
    link_release_runs(release_list)
    settle_standalone(alone, scale.results - sum(r.has_result for r in story.release_runs), rng)
    people = {p.id: p.api for p in [cast.admin, *cast.operators, *cast.approvers, *cast.pipelines]}
    run_events(journal, sorted(runs, key=lambda r: r.id), release_list, people)
    return journal, cast, builder, routes, runs, release_list


def _phase1_rows(
    cast: Cast, routes: list[RoutePlan], runs: list[RunPlan], releases: list[ReleasePlan]
) -> Iterator[tuple[type[Model], list[dict[str, Any]]]]:
    running = {r.worker.id: r for r in sorted(runs, key=lambda r: r.id) if r.state == "running" and r.worker}
    for row in cast.rows[Worker]:
        if row["id"] in running:
            row["reported_run"] = {"id": running[row["id"]].id, "attempt": 1}
    for model in (get_user_model(), UserRole, ApiToken, BootstrapToken, Worker, WorkerCredential):
        yield model, cast.rows[model]
    yield (
        Route,
        [
            {
                "id": r.id,
                "slug": r.slug,
                "description": r.description,
                "created_at": r.created_at,
                "active_version_id": r.active_version.id if r.active_version else None,
                "active_since": r.active_since,
            }
            for r in routes
        ],
    )
    yield (
        ContractVersion,
        [
            {
                "id": v.id,
                "route_id": v.route_id,
                "number": v.number,
                "digest": v.stored.digest,
                "document": v.stored.document,
                "source_format": v.source,
                "created_by_id": v.created_by,
                "created_at": v.created_at,
            }
            for r in routes
            for v in r.versions
        ],
    )
    yield Release, [release_row(x) for x in releases]


def _units(runs: list[RunPlan], releases: list[ReleasePlan]) -> list[Unit]:
    units = [
        Unit(x.runs, x.id, x.gated, x.candidate.stored.document.get("measurement", {}))
        for x in releases
        if x.runs
    ]
    alone = [r for r in sorted(runs, key=lambda r: r.id) if r.release_id is None]
    units += [Unit(alone[i : i + 8]) for i in range(0, len(alone), 8)]
    return units


def _batches(units: list[Unit], per_batch: int) -> list[list[Unit]]:
    out: list[list[Unit]] = [[]]
    for unit in sorted(units, key=lambda u: u.runs[0].id):
        if sum(len(u.runs) for u in out[-1]) >= per_batch:
            out.append([])
        out[-1].append(unit)
    return out


def generate(
    conninfo: str,
    scale: Scale,
    *,
    seed: int = 16,
    jobs: int = 2,
    validate_every: int = 200,
    log: Callable[[str], None] = print,
) -> Report:
    report = Report(scale.name)
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        report.seconds[name] = round(now - clock, 2)
        clock = now
        log(f"  {name}: {report.seconds[name]:.1f} s")

    end = datetime.now(UTC).replace(microsecond=0)
    with psycopg.connect(conninfo) as conn:
        _refuse_unless_empty(conn)
    log(f"planning the {scale.name} scale ({scale.routes} routes, {scale.runs} runs, seed {seed})")
    journal, cast, builder, routes, runs, releases = plan(scale, seed, end)
    lap("plan")
    with psycopg.connect(conninfo) as conn, conn.transaction():
        for model, rows in _phase1_rows(cast, routes, runs, releases):
            report.counts[model._meta.label] = copy_rows(conn, model, rows)
    lap("write people, routes, versions, releases")

    done = UnitsDone()
    batches = [(conninfo, b, validate_every) for b in _batches(_units(runs, releases), per_batch=40)]
    if jobs <= 1:
        results: Iterator[UnitsDone] = map(write_units, batches)
        outcome = list(results)
        close_connection()
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            outcome = []
            for i, part in enumerate(pool.imap_unordered(write_units, batches), start=1):
                outcome.append(part)
                if i % max(1, len(batches) // 10) == 0:
                    log(f"    {i}/{len(batches)} batches of runs and results")
    for part in outcome:
        done.gates.update(part.gates)
        done.runs += part.runs
        done.results += part.results
        done.samples += part.samples
        done.validated += part.validated
        done.payload_bytes += part.payload_bytes
    report.counts["benchmarks_app.Run"] = done.runs
    report.counts["benchmarks_app.RunResult"] = done.results
    report.samples, report.validated, report.payload_bytes = done.samples, done.validated, done.payload_bytes
    lap("runs, results and gates")

    for release in releases:
        if release.id in done.gates:
            release.verdict, release.gate_result = done.gates[release.id]
            report.verdicts[release.verdict] = report.verdicts.get(release.verdict, 0) + 1
        report.release_states[release.state] = report.release_states.get(release.state, 0) + 1
        record_events(journal, release)
    decisions: list[dict[str, Any]] = []
    for release in sorted(releases, key=lambda x: x.id):
        decisions += decision_rows(release, len(decisions) + 1)
    tokens_before = len(cast.rows[ApiToken])
    _fill_audit(journal, builder, cast, scale, end)
    with psycopg.connect(conninfo) as conn, conn.transaction():
        _write_verdicts(conn, releases)
        report.counts["releases_app.Decision"] = copy_rows(conn, Decision, decisions)
        copy_rows(conn, ApiToken, cast.rows[ApiToken][tokens_before:])
        report.counts["accounts_app.ApiToken"] = len(cast.rows[ApiToken])
        report.counts["audit_app.AuditEvent"] = copy_rows(conn, AuditEvent, chained_rows(journal.drafts))
        reset_sequences(conn, [m for m in _models()])
    lap("verdicts, decisions, audit chain")
    with psycopg.connect(conninfo) as conn, conn.transaction():
        live = write_live_year(conn, routes, scale, end)
        report.counts["live_app.Endpoint"] = live.endpoints
        report.counts["live_app.Probe"] = live.probes
        report.counts["live_app.AcceptanceSample"] = live.samples
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("ANALYZE")
        report.triggers = _triggers(conn)
    lap("a year of live probes, ANALYZE")
    return report


def _fill_audit(journal: Journal, builder: CastBuilder, cast: Cast, scale: Scale, end: datetime) -> None:
    """Up to the scale's number of events: pipeline jobs that issue themselves a
    short-lived token and revoke it when done (two events each)."""
    missing = scale.audit_events - len(journal)
    if missing < 0:
        return
    rng = builder.rng
    first = min(d.at for d in journal.drafts)
    times = sorted(first + (end - timedelta(hours=1) - first) * rng.random() for _ in range(missing // 2))
    for job, at in enumerate(times, start=1):
        builder.churn_token(rng.choice(cast.pipelines), at, job)
    if missing % 2:  # one job's token left to expire unrevoked
        builder.churn_token(cast.pipelines[0], end - timedelta(minutes=30), len(times) + 1, revoke=False)


def _write_verdicts(conn: psycopg.Connection[Any], releases: list[ReleasePlan]) -> None:
    gated = [{"id": x.id, "v": x.verdict, "r": x.gate_result} for x in releases if x.verdict is not None]
    with conn.cursor() as cur:
        cur.execute("CREATE TEMP TABLE datagen_verdicts (id bigint, v text, r jsonb) ON COMMIT DROP")
        with cur.copy("COPY datagen_verdicts (id, v, r) FROM STDIN") as copy:
            for g in gated:
                copy.write_row([g["id"], g["v"], json.dumps(g["r"])])
        table = Release._meta.db_table
        cur.execute(
            f'UPDATE "{table}" AS t SET gate_verdict = d.v, gate_result = d.r '  # noqa: S608 (a model's table)
            "FROM datagen_verdicts d WHERE t.id = d.id"
        )


def _models() -> list[type[Model]]:
    return [
        get_user_model(),
        UserRole,
        ApiToken,
        BootstrapToken,
        Worker,
        WorkerCredential,
        Route,
        ContractVersion,
        Release,
        Decision,
        Run,
        OutboxMessage,
        RunResult,
    ]
