"""An advice run's life: asked for (checked, stored, its first batches dispatched), each
measured batch recorded when its benchmark run ends, the next batch dispatched, the
recommendation stored per lane when the advisor stops; cancelled by an operator.

The advisor's state is the stored records (strategy/advisor.py replays them), so every
step rebuilds it and asks `next_batch()`: after a worker loss, what the lost run should
have measured is still missing from the records and is dispatched again (once; a second
loss in the same round fails the advice, with the runs' reasons in words). Each step
holds the advice row's lock, and a run's result is recorded only while its entry in
`dispatched` is pending: a redelivered "run finished" records nothing twice."""

from __future__ import annotations

import math
import re
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts_app.permissions import ensure_route_access, require_role
from advice_app.candidates import checked_candidates
from advice_app.choices import AdviceState
from advice_app.measure import advisor_for, lane_levels, samples_of_run
from advice_app.models import AdviceRun
from advice_app.selectors import gpu_minutes_spent
from advice_app.serialize import candidate_from_dict, recommendation_to_dict, record_to_dict
from advice_app.strategy import BASELINE, Record, Request
from advice_app.variants import baseline_document, candidate_document
from audit_app.actors import Actor, as_actor
from audit_app.services import audit_record
from benchmarks_app.choices import ACTIVE_STATES, RunState
from benchmarks_app.gate import GateRules
from benchmarks_app.gate.inputs import GateInputError
from benchmarks_app.gate.metrics import METRICS
from benchmarks_app.models import Run
from benchmarks_app.models.workers import QUEUE_NAME_PATTERN
from benchmarks_app.services import run_cancel, variant_run_create
from benchmarks_app.spec_build import workloads_of
from contracts_app.document import ContractError, validate_document
from contracts_app.models import Route
from kernel.errors import Conflict, DomainError, FieldError
from kernel.text import REASON_MAX, checked_text

MAX_BUDGET = 1_000_000
MAX_GPU_MINUTES = 7 * 24 * 60  # a week of one worker
MAX_SEED = 2**63 - 1
OPTION_BOUNDS = {"looks": (1, 10), "n_start": (1, 100_000), "n_boot": (100, 20_000)}
ADVISED_BASES = ("ttft", "tpot", "e2e")  # what the advisor's samples hold (strategy/types.Samples)


def _int(value: Any, lo: int, hi: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and lo <= value <= hi


def _check_lanes(lanes: Any, active: dict[str, Any]) -> list[FieldError]:
    workloads = workloads_of(active)
    if not isinstance(lanes, list) or not lanes or not all(isinstance(x, str) for x in lanes):
        return [FieldError("lanes", f"give one or more lanes of {', '.join(workloads) or '(none measured)'}")]
    errors = []
    if len(set(lanes)) != len(lanes):
        errors.append(FieldError("lanes", "a lane is named twice"))
    for i, lane in enumerate(lanes):
        if lane not in workloads:
            errors.append(
                FieldError(
                    f"lanes[{i}]",
                    f"{lane!r} is not in the active version's measurement.workloads "
                    f"({', '.join(workloads) or 'none'})",
                )
            )
        elif not workloads[lane].get("concurrency"):
            errors.append(
                FieldError(
                    f"lanes[{i}]",
                    f"lane {lane} is measured at request rates only; the advisor measures concurrency levels",
                )
            )
    return errors


def _check_rules(measurement: dict[str, Any]) -> tuple[GateRules | None, list[FieldError]]:
    try:
        rules = GateRules.from_measurement(measurement)
    except GateInputError as exc:
        return None, [FieldError("measurement", str(exc))]
    errors = [
        FieldError(
            "measurement",
            f"{r.rule_id} judges {r.metric}: the advisor measures TTFT, TPOT and E2E latency only",
        )
        for r in rules.stat_rules
        if METRICS[r.metric].base not in ADVISED_BASES
    ]
    return rules, errors


def _check_options(options: Any) -> list[FieldError]:
    if not isinstance(options, dict):
        return [FieldError("options", "an object: {looks, n_start, n_boot, pool}")]
    known = {*OPTION_BOUNDS, "pool"}
    errors = [FieldError(f"options.{k}", "unknown option") for k in sorted(set(options) - known, key=str)]
    for key, (lo, hi) in OPTION_BOUNDS.items():
        if key in options and not _int(options[key], lo, hi):
            errors.append(FieldError(f"options.{key}", f"a whole number from {lo} to {hi}"))
    pool = options.get("pool")
    if "pool" in options and (not isinstance(pool, str) or not re.fullmatch(QUEUE_NAME_PATTERN, pool)):
        errors.append(
            FieldError("options.pool", "a pool name such as cpu or pool.gpu-h100 (letters, digits, . _ : -)")
        )
    return errors


def _minutes(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 < value <= MAX_GPU_MINUTES
    )


def _first_round_cost(advice: AdviceRun, lane: str) -> int:
    """What the first batches really measure: each run measures the baseline beside its
    candidate (interleaved, so the two see the same machine), so the baseline is measured
    once per candidate, not once."""
    adv = advisor_for(advice, lane)
    return 2 * len(adv.candidates) * len(adv.levels) * adv.n_start


def advice_run_create(
    *,
    route: Route,
    lanes: Any,
    candidates: Any,
    budget: Any,
    seed: Any = 0,
    actor: Any,
    options: Any = None,
    budget_gpu_minutes: Any = None,
) -> AdviceRun:
    """Ask what `lanes` of `route` should run: `candidates` measured against speculation off
    on the active version's workloads and levels, at most `budget` requests per lane (both
    arms) and, when given, `budget_gpu_minutes` of worker time in all. Operator role, within
    the route scope. Dispatches the first batches."""
    who = as_actor(actor)
    require_role(who, "operator")
    ensure_route_access(who, route)
    active = route.active_version
    if active is None:
        raise DomainError(
            f"route {route.slug} has no active version: the advice measures candidates against it",
            code="no_active_version",
            status=409,
        )
    document = active.document
    options = {} if options is None else options
    errors = _check_lanes(lanes, document)
    stored, candidate_errors = checked_candidates(candidates, document)
    errors += candidate_errors
    _, rule_errors = _check_rules(document.get("measurement") or {})
    errors += rule_errors
    if not _int(budget, 1, MAX_BUDGET):
        errors.append(
            FieldError("budget", f"a whole number of requests from 1 to {MAX_BUDGET} (per lane, both arms)")
        )
    if budget_gpu_minutes is not None and not _minutes(budget_gpu_minutes):
        errors.append(
            FieldError(
                "budget_gpu_minutes",
                f"a number of minutes above 0, at most {MAX_GPU_MINUTES} (or leave it out)",
            )
        )
    if not _int(seed, 0, MAX_SEED):
        errors.append(FieldError("seed", "a whole number >= 0"))
    errors += _check_options(options)
    try:
        validate_document(baseline_document(document))
    except ContractError as exc:
        errors += [FieldError(f"baseline.{e.path}", e.message) for e in exc.errors]
    if errors:
        raise DomainError("The advice run is invalid; see errors.", errors=errors)
    target = document.get("target") or {}
    with transaction.atomic():
        advice = AdviceRun(
            route=route,
            based_on=active,
            engine=str(target.get("engine", "")),
            engine_release=str(target.get("engine_version") or ""),
            lanes=list(lanes),
            candidates=stored,
            budget=budget,
            budget_gpu_minutes=None if budget_gpu_minutes is None else float(budget_gpu_minutes),
            seed=seed,
            options=dict(options),
            created_by=who.user if who.user is not None and who.user.is_authenticated else None,
        )
        budget_errors = []
        for lane in advice.lanes:
            try:
                cost = _first_round_cost(advice, lane)
            except ValueError as exc:
                budget_errors.append(
                    FieldError("budget" if "budget" in str(exc) else "options", f"lane {lane}: {exc}")
                )
                continue
            if budget < cost:
                budget_errors.append(
                    FieldError(
                        "budget",
                        f"lane {lane}: at least {cost}: the first round measures each of "
                        f"{len(stored)} candidates beside the baseline at {len(lane_levels(advice, lane))} "
                        "levels (both arms in every run)",
                    )
                )
        if budget_errors:
            raise DomainError("The advice run is invalid; see errors.", errors=budget_errors)
        advice.save()
        audit_record(
            actor=who,
            action="advice.create",
            obj_type="advice",
            obj_id=advice.pk,
            route=route,
            after={
                "based_on": active.number,
                "lanes": advice.lanes,
                "candidates": [c["name"] for c in stored],
                "budget": budget,
                "budget_gpu_minutes": advice.budget_gpu_minutes,
                "seed": seed,
            },
        )
        _advance(AdviceRun.objects.select_for_update().get(pk=advice.pk), who)
    return AdviceRun.objects.get(pk=advice.pk)


# -- each step ------------------------------------------------------------------------


def _lane_entries(advice: AdviceRun, lane: str) -> dict[str, dict[str, Any]]:
    return {rid: e for rid, e in advice.dispatched.items() if e["lane"] == lane}


def _advance(advice: AdviceRun, actor: Actor) -> None:
    """Dispatch each lane's next batch, or store its recommendation when the advisor stops;
    finish the advice when every lane has one. The caller holds the row's lock."""
    if advice.is_final:
        return
    for lane in advice.lanes:
        if lane in advice.recommendations:
            continue
        entries = _lane_entries(advice, lane)
        if any(e["status"] == "pending" for e in entries.values()):
            continue  # its round is still being measured
        adv = advisor_for(advice, lane)
        batch = adv.next_batch()
        out_of_time = _worker_time_spent(advice) if batch else None
        if not batch or out_of_time:
            rec = recommendation_to_dict(adv.recommendation(), adv)
            advice.recommendations = {**advice.recommendations, lane: _stopped_by(rec, out_of_time)}
            continue
        last_round = max((e["round"] for e in entries.values()), default=0)
        this_round = [e for e in entries.values() if e["round"] == last_round]
        # A lost run's cells are still missing from the records: the advisor asks for them
        # again, once, in the same round (a retried round that is complete starts the next).
        retry = any(e["status"] == "lost" for e in this_round) and not any(e["retry"] for e in this_round)
        _dispatch(advice, lane, batch, last_round if retry else last_round + 1, retry, actor)
    if set(advice.recommendations) >= set(advice.lanes):
        advice.state = AdviceState.FINISHED
        advice.finished_at = timezone.now()
    elif advice.state == AdviceState.QUEUED:
        advice.state = AdviceState.MEASURING
    advice.save(update_fields=["state", "finished_at", "recommendations", "dispatched"])
    if advice.state == AdviceState.FINISHED:
        audit_record(
            actor=Actor.system(),
            action="advice.finished",
            obj_type="advice",
            obj_id=advice.pk,
            route=advice.route,
            after={lane: rec["summary"] for lane, rec in advice.recommendations.items()},
        )


def _worker_time_spent(advice: AdviceRun) -> str | None:
    """Words when the GPU-minute budget is spent (None: there is none, or time is left)."""
    if advice.budget_gpu_minutes is None:
        return None
    spent = gpu_minutes_spent(advice)
    if spent < advice.budget_gpu_minutes:
        return None
    return f"{spent:.1f} of {advice.budget_gpu_minutes:g} GPU-minutes"


def _stopped_by(rec: dict[str, Any], out_of_time: str | None) -> dict[str, Any]:
    """A lane the worker-time budget stopped: said as the budget running out before the
    advisor decided (finished, `stopped` None, in words), never as its decision."""
    if not out_of_time:
        return rec
    return {
        **rec,
        "finished": True,
        "stopped": None,
        "budget_spent": out_of_time,
        "summary": f"{rec['summary']} Measuring stopped: the GPU-minute budget was spent ({out_of_time}) "
        "before the advisor decided.",
    }


def _groups(batch: list[Request]) -> list[tuple[str, int, list[float]]]:
    """One run per candidate and count: (candidate name, n, levels). The baseline's
    requests come with every run (its arm beside the candidate's), so they need none."""
    by: dict[tuple[str, int], list[float]] = {}
    for r in batch:
        if r.candidate != BASELINE:
            by.setdefault((r.candidate.name, r.n), []).append(r.level)
    if not by:
        # Each run measures both arms, so the baseline has at least as many requests at
        # every level as any candidate: a batch of the baseline alone can't be asked for.
        raise DomainError("the advisor asked for baseline requests alone, which no run can measure")
    return [(name, n, sorted(levels)) for (name, n), levels in sorted(by.items())]


def _dispatch(
    advice: AdviceRun, lane: str, batch: list[Request], round_: int, retry: bool, actor: Actor
) -> None:
    version = advice.based_on
    workload = workloads_of(version.document)[lane]
    by_name = {c["name"]: c for c in advice.candidates}
    off = baseline_document(version.document)
    for name, n, levels in _groups(batch):
        overrides: dict[str, Any] = {
            "concurrency": [int(lv) for lv in levels],
            "requests_per_level": n,
            "seed": (advice.seed + round_) % (2**63),
        }
        if workload.get("max_tokens"):
            overrides["max_tokens"] = workload["max_tokens"]
        run = variant_run_create(
            route=advice.route,
            lane=lane,
            version=version,
            documents={"baseline": off, "candidate": candidate_document(version.document, by_name[name])},
            overrides=overrides,
            actor=actor,
            advice_id=advice.pk,
            # The operator's pool (`options.pool`), as a run's own `pool`: e.g. `cpu` for a
            # managed engine measured where it will serve, not on the GPU pool managed runs go to.
            pool=advice.options.get("pool"),
        )
        advice.dispatched = {
            **advice.dispatched,
            str(run.pk): {
                "lane": lane,
                "candidate": name,
                "levels": levels,
                "n": n,
                "round": round_,
                "retry": retry,
                "status": "pending",
            },
        }


def _words(run: Run) -> str:
    return f"run {run.pk} {run.get_state_display()}" + (f": {run.last_error}" if run.last_error else "")


def advice_run_finished(*, run_id: int) -> str:
    """A benchmark run of an advice ended: record what it measured (or note its loss),
    then take the next step. What it did, in words; quiet when nothing is left to do."""
    with transaction.atomic():
        run = Run.objects.select_related("result").filter(pk=run_id).first()
        if run is None or run.advice_id is None or run.state in ACTIVE_STATES:
            return f"run {run_id}: not an ended run of an advice"
        advice = (
            AdviceRun.objects.select_for_update().select_related("route", "based_on").get(pk=run.advice_id)
        )
        entry = advice.dispatched.get(str(run.pk))
        if advice.is_final or entry is None or entry["status"] != "pending":
            return f"advice {advice.pk}: run {run.pk} already taken into account"
        if run.state == RunState.SUCCEEDED and getattr(run, "result", None) is not None:
            _record(advice, run, entry)
            what = f"recorded run {run.pk}"
        elif entry["retry"]:
            entry["status"] = "lost"
            _fail(
                advice,
                f"lane {entry['lane']}: the batch of {entry['candidate']} was lost twice ({_words(run)}); "
                "its records are kept",
            )
            return advice.last_error
        else:
            entry["status"] = "lost"
            advice.last_error = f"{_words(run)}; what it should have measured is dispatched again"
            advice.save(update_fields=["dispatched", "last_error"])
            what = f"run {run.pk} lost"
        try:
            with transaction.atomic():
                _advance(advice, Actor.system())
        except DomainError as exc:
            # The next batch can't be dispatched (e.g. the version's spec no longer builds):
            # said on the advice, not left measuring for ever.
            advice.refresh_from_db()
            _fail(advice, f"the next batch of lane {entry['lane']} could not be dispatched: {exc.detail}")
            return advice.last_error
        return f"advice {advice.pk}: {what}; {advice.get_state_display()}"


def _fail(advice: AdviceRun, reason: str) -> None:
    """The advice ends failed with `reason`; its runs still going are cancelled."""
    advice.state = AdviceState.FAILED
    advice.finished_at = timezone.now()
    advice.last_error = reason
    advice.save(update_fields=["dispatched", "state", "finished_at", "last_error"])
    _cancel_active_runs(advice, Actor.system(), "the advice failed")
    audit_record(
        actor=Actor.system(),
        action="advice.failed",
        obj_type="advice",
        obj_id=advice.pk,
        route=advice.route,
        after={"state": advice.state},
        reason=reason,
    )


def _record(advice: AdviceRun, run: Run, entry: dict[str, Any]) -> None:
    lane = entry["lane"]
    by_name = {c["name"]: c for c in advice.candidates}
    candidate = candidate_from_dict(by_name[entry["candidate"]])
    measured = samples_of_run(run.result.payload)
    records = list(advice.records.get(lane, []))
    for level in entry["levels"]:
        for who, arm in ((BASELINE, "baseline"), (candidate, "candidate")):
            samples = measured[arm].get(float(level))
            if samples is not None and samples.n_requests:
                records.append(record_to_dict(Record(who, float(level), samples)))
    entry["status"] = "recorded"
    advice.records = {**advice.records, lane: records}
    advice.save(update_fields=["records", "dispatched"])


# -- cancel -----------------------------------------------------------------------------


def _cancel_active_runs(advice: AdviceRun, actor: Any, reason: str) -> None:
    for run in Run.objects.filter(advice=advice, state__in=list(ACTIVE_STATES)).order_by("id"):
        run_cancel(run=run, actor=actor, reason=reason)


def advice_cancel(*, advice: AdviceRun, actor: Any, reason: str = "") -> AdviceRun:
    """Stop measuring: its queued and running runs are cancelled; the records stay."""
    who = as_actor(actor)
    require_role(who, "operator")
    ensure_route_access(who, advice.route_id and advice.route, missing=f"No advice run {advice.pk}.")
    reason = checked_text(reason, field="reason", max_length=REASON_MAX)
    with transaction.atomic():
        locked = AdviceRun.objects.select_for_update().get(pk=advice.pk)
        if locked.is_final:
            raise Conflict(f"advice run {locked.pk} is already {locked.state}", code="advice_final")
        before = locked.state
        locked.state = AdviceState.CANCELLED
        locked.finished_at = timezone.now()
        locked.last_error = "cancelled" + (f": {reason}" if reason else "")
        locked.save(update_fields=["state", "finished_at", "last_error"])
        _cancel_active_runs(locked, who, reason or f"advice run {locked.pk} cancelled")
        audit_record(
            actor=who,
            action="advice.cancel",
            obj_type="advice",
            obj_id=locked.pk,
            route=locked.route,
            before={"state": before},
            after={"state": locked.state},
            reason=reason,
        )
    return locked


def advice_runs_left_behind() -> int:
    """Take up each ended run of a measuring advice that is still pending (its step's
    message was lost, or the control-plane worker died in it): how many."""
    pending = [
        int(rid)
        for a in AdviceRun.objects.filter(state__in=[AdviceState.QUEUED, AdviceState.MEASURING]).only(
            "dispatched"
        )
        for rid, e in a.dispatched.items()
        if e["status"] == "pending"
    ]
    ended = (
        Run.objects.filter(pk__in=pending).exclude(state__in=list(ACTIVE_STATES)).values_list("pk", flat=True)
    )
    for run_id in sorted(ended):
        advice_run_finished(run_id=run_id)
    return len(ended)
