"""Creating and cancelling runs. A run and its dispatch (outbox row) are written in one
transaction: there is never a run nobody will deliver, nor a delivery of no run."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from audit_app.services import audit_record
from benchmarks_app.choices import ACTIVE_STATES, EngineKind, RunState
from benchmarks_app.models import OutboxMessage, Run, Worker
from benchmarks_app.run_auth import bound_arm
from benchmarks_app.services.outbox import outbox_enqueue
from benchmarks_app.services.waiting import run_mark_waiting
from benchmarks_app.signals import announce_run_finished
from benchmarks_app.spec_build import build_spec, default_engine_kind, workloads_of
from contracts_app.models import ContractVersion, Route
from kernel.errors import Conflict, DomainError, FieldError
from kernel.outbound import check_endpoint_url
from kernel.text import REASON_MAX, checked_text
from worker.spec import ARMS


def _queue_for(*, engine_kind: str, worker: Worker | None, pool: str | None) -> str:
    """A chosen worker's own queue, a named pool, or the pool every fitting worker serves:
    RUN_MANAGED_QUEUE (`pool.gpu`) for engines the worker launches (vLLM and the like need a GPU),
    `engine.transformers` for the in-process engine (workers with torch and transformers),
    `pool.any` for given endpoints."""
    if worker is not None:
        return worker.own_queue
    if pool:
        return pool if pool.startswith("pool.") else f"pool.{pool}"
    configured = settings.RUN_RELEASE_QUEUE if engine_kind != EngineKind.MANAGED else ""
    if configured:
        return str(configured)
    return {
        EngineKind.MANAGED: settings.RUN_MANAGED_QUEUE,
        EngineKind.TRANSFORMERS: "engine.transformers",
    }.get(EngineKind(engine_kind), "pool.any")


def _create_one(
    *,
    route: Route,
    release_id: int | None,
    lane: str,
    baseline: ContractVersion,
    candidate: ContractVersion,
    engine_kind: str,
    endpoints: dict[str, Any] | None,
    worker: Worker | None,
    pool: str | None,
    overrides: dict[str, Any],
    created_by: Any,
    advice_id: int | None = None,
    documents: dict[str, dict[str, Any]] | None = None,
) -> Run:
    run = Run.objects.create(
        route=route,
        release_id=release_id,
        advice_id=advice_id,
        arm_documents=documents,
        lane=lane,
        baseline_version=baseline,
        candidate_version=candidate,
        engine_kind=engine_kind,
        endpoints=endpoints,
        target_worker=worker,
        queue=_queue_for(engine_kind=engine_kind, worker=worker, pool=pool),
        created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
    )
    # The spec names the run, so it is built once the run has its id.
    run.spec = build_spec(
        run_id=run.pk,
        attempt=run.attempt,
        route_slug=route.slug,
        release_id=release_id,
        lane=lane,
        baseline=baseline,
        candidate=candidate,
        engine_kind=engine_kind,
        endpoints=endpoints,
        overrides=overrides,
        documents=documents,
    )
    run.progress_total = 2 * len(run.spec["load"]["levels"]) * run.spec["load"]["requests_per_level"]
    run.note("queued", f"to {run.queue}")
    run.save(update_fields=["spec", "progress_total", "history"])
    outbox_enqueue(run=run)
    run_mark_waiting(run=run)
    return run


def _check_endpoints(engine_kind: str, endpoints: dict[str, Any] | None) -> None:
    if engine_kind != EngineKind.OPENAI:
        if endpoints:
            raise DomainError(
                "endpoints are only for the openai engine",
                errors=[FieldError("endpoints", "give engine 'openai' or leave endpoints out")],
            )
        return
    missing = [arm for arm in ARMS if not (endpoints or {}).get(arm)]
    if missing:
        raise DomainError(
            "the openai engine needs a baseline and a candidate endpoint",
            errors=[FieldError(f"endpoints.{arm}", "required: {base_url, model}") for arm in missing],
        )
    assert endpoints is not None  # no arm is missing
    # The worker calls these (and paths under base_url's root, on the same host): they are
    # held to the networks live endpoints are, before anything is written. The worker
    # checks them again against its own allowlist when it connects.
    for arm in ARMS:
        for key in ("base_url", "metrics_url"):
            url = endpoints[arm].get(key)
            if url not in (None, ""):
                check_endpoint_url(url, f"endpoints.{arm}.{key}")


@transaction.atomic
def run_create(
    *,
    route: Route,
    baseline: ContractVersion,
    candidate: ContractVersion,
    lane: str | None,
    actor: Any,
    engine_kind: str | None = None,
    endpoints: dict[str, Any] | None = None,
    worker: Worker | None = None,
    pool: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> Run:
    """A standalone run an operator asks for (no release)."""
    if baseline.route_id != route.pk or candidate.route_id != route.pk:
        raise DomainError("both versions must belong to the route")
    lanes = list(workloads_of(candidate.document))
    if lane is None:
        if len(lanes) != 1:
            raise DomainError(
                "the candidate measures several lanes: say which one",
                errors=[FieldError("lane", f"one of {', '.join(lanes)}")],
            )
        lane = lanes[0]
    if worker is not None and worker.revoked_at is not None:
        raise DomainError("that worker is revoked", errors=[FieldError("worker", "revoked")])
    kind = engine_kind or default_engine_kind(candidate.document)
    _check_endpoints(kind, endpoints)
    if endpoints:  # the requester's: a secret they name must be one of the route's bindings
        endpoints = {arm: bound_arm(route, arm, e, subject=actor) for arm, e in endpoints.items()}
    user = getattr(actor, "user", actor)
    run = _create_one(
        route=route,
        release_id=None,
        lane=lane,
        baseline=baseline,
        candidate=candidate,
        engine_kind=kind,
        endpoints=endpoints,
        worker=worker,
        pool=pool,
        overrides=overrides or {},
        created_by=user,
    )
    audit_record(
        actor=actor,
        action="run.create",
        obj_type="run",
        obj_id=run.pk,
        route=route,
        after={"lane": lane, "queue": run.queue, "baseline": baseline.number, "candidate": candidate.number},
    )
    return run


@transaction.atomic
def release_runs_create(*, release: Any, actor: Any, endpoints: dict[str, Any] | None = None) -> list[Run]:
    """One run per lane in the candidate's `measurement.workloads`, each dispatched to a
    pool queue: on the engines the contract names, or with the `openai` engine on given
    `endpoints` (arm → {base_url, model, …}: a release benchmarked on live endpoints).
    Called by the release flow inside its transaction when a release enters
    `benchmarking`: if this raises, the release does not enter it."""
    candidate = release.candidate_version
    baseline = release.baseline_version
    if baseline is None:
        raise DomainError("a release without a baseline version has nothing to benchmark against")
    lanes = workloads_of(candidate.document)
    if not lanes:
        raise DomainError("the candidate contract measures no workload (measurement.workloads is empty)")
    kind = EngineKind.OPENAI if endpoints else default_engine_kind(candidate.document)
    _check_endpoints(kind, endpoints)
    user = getattr(actor, "user", actor)
    runs = [
        _create_one(
            route=release.route,
            release_id=release.pk,
            lane=lane,
            baseline=baseline,
            candidate=candidate,
            engine_kind=kind,
            endpoints=endpoints,
            worker=None,
            pool=None,
            overrides={},
            created_by=user,
        )
        for lane in lanes
    ]
    audit_record(
        actor=actor,
        action="release.runs.create",
        obj_type="release",
        obj_id=release.pk,
        route=release.route,
        after={"runs": [{"id": r.pk, "lane": r.lane, "queue": r.queue} for r in runs]},
    )
    return runs


@transaction.atomic
def run_cancel(*, run: Run, actor: Any, reason: str) -> Run:
    """Queued: it never starts (the relay discards its message, the worker's claim is
    refused). Running: the worker stops at its next progress report; its result is refused."""
    reason = checked_text(reason, field="reason", max_length=REASON_MAX)
    locked = Run.objects.select_for_update().get(pk=run.pk)
    if locked.state not in ACTIVE_STATES:
        raise Conflict(f"run {locked.pk} is already {locked.state}", code="run_finished")
    before = locked.state
    who = getattr(actor, "label", None) or getattr(actor, "username", None) or "an operator"
    locked.state = RunState.CANCELLED
    locked.finished_at = timezone.now()
    locked.last_error = f"cancelled by {who}" + (f": {reason}" if reason else "")
    locked.note("cancelled", locked.last_error)
    locked.save(update_fields=["state", "finished_at", "last_error", "history"])
    # Its dispatch, if still waiting for the broker, is never sent.
    OutboxMessage.objects.filter(run=locked, published_at__isnull=True, discarded_at__isnull=True).update(
        discarded_at=locked.finished_at
    )
    audit_record(
        actor=actor,
        action="run.cancel",
        obj_type="run",
        obj_id=locked.pk,
        route=locked.route_id and locked.route,
        before={"state": before},
        after={"state": locked.state},
        reason=reason,
    )
    announce_run_finished(run=locked)
    return locked


@transaction.atomic
def release_runs_cancel(*, release: Any, actor: Any, reason: str = "") -> list[Run]:
    """For the release flow when a release is cancelled while benchmarking: its queued and
    running runs are cancelled (their workers stop at the next progress report)."""
    runs = list(Run.objects.select_for_update().filter(release_id=release.pk, state__in=list(ACTIVE_STATES)))
    why = reason or f"release {release.pk} cancelled"
    return [run_cancel(run=run, actor=actor, reason=why) for run in runs]


@transaction.atomic
def variant_run_create(
    *,
    route: Route,
    lane: str,
    version: ContractVersion,
    documents: dict[str, dict[str, Any]],
    overrides: dict[str, Any],
    actor: Any,
    advice_id: int | None = None,
    pool: str | None = None,
) -> Run:
    """A run whose arms are variants of one version (`documents`: arm → document, each
    validated as a contract when the spec is built): advice_app measures the active version
    with speculation off against it with a candidate's speculation, one batch per run. On
    the engine the version names, dispatched like any run (to `pool` where one is named)."""
    kind = default_engine_kind(version.document)
    run = _create_one(
        route=route,
        release_id=None,
        lane=lane,
        baseline=version,
        candidate=version,
        engine_kind=kind,
        endpoints=None,
        worker=None,
        pool=pool,
        overrides=overrides,
        created_by=getattr(actor, "user", actor),
        advice_id=advice_id,
        documents=documents,
    )
    audit_record(
        actor=actor,
        action="run.create",
        obj_type="run",
        obj_id=run.pk,
        route=route,
        after={"lane": lane, "queue": run.queue, "version": version.number, "advice": advice_id,
               "arms": {arm: run.spec["arms"][arm]["speculation_method"] for arm in ARMS}},
    )  # fmt: skip
    return run
