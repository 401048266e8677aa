"""When the last run of a release ends: fail the release if any run did not succeed, else
hand the results to the gate and the verdict to releases_app.

Runs after the commit of the transaction that ended the run (`notify_release`), in its
own transaction, so the gate's bootstrap never holds the worker's result upload; the
sweep calls `release_conclude` again for any release left behind (a process that died
between the commit and the hook).
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import connection, transaction

from audit_app.actors import Actor
from benchmarks_app.choices import ACTIVE_STATES, RunState
from benchmarks_app.models import Run

log = logging.getLogger(__name__)

# Serializes the conclusion of one release across processes (PostgreSQL advisory lock;
# SQLite has one writer anyway). Any constant works: it only namespaces the lock.
_LOCK_NAMESPACE = 0x5BE_4C4


def notify_release(*, run: Run) -> None:
    """Call in the transaction that finished `run`."""
    if run.release_id is not None:
        release_id = run.release_id
        transaction.on_commit(lambda: release_conclude_quietly(release_id=release_id))


def release_conclude_quietly(*, release_id: int) -> None:
    try:
        release_conclude(release_id=release_id)
    except Exception:  # the sweep concludes it later; the run's own commit stands
        log.exception("concluding release %s failed; the sweep will retry", release_id)


def _failure_reason(runs: list[Run]) -> str:
    bad = [r for r in runs if r.state != RunState.SUCCEEDED]
    parts = [f"run {r.pk} (lane {r.lane}) {r.state}: {r.last_error or 'no reason given'}" for r in bad]
    return "benchmark did not complete: " + "; ".join(parts)


def _gate(runs: list[Run], release: Any) -> tuple[str, dict[str, Any]] | None:
    """(verdict, gate result as JSON) or None while the gate module is not installed."""
    try:
        from benchmarks_app.gate import GateRules, evaluate_gate, gate_input_from_harness
    except ImportError:
        return None
    results = {r.lane: r.result.payload for r in runs}
    data = gate_input_from_harness(
        baseline={lane: p["baseline"] for lane, p in results.items()},
        candidate={lane: p["candidate"] for lane, p in results.items()},
    )
    rules = GateRules.from_measurement(release.candidate_version.document.get("measurement", {}))
    result = evaluate_gate(data, rules, seed=release.pk)
    return str(result.verdict.value), result.as_dict()


def release_conclude(*, release_id: int) -> str:
    """What it did, in words (for logs and the sweep's report)."""
    from releases_app.choices import ReleaseState
    from releases_app.models import Release
    from releases_app.services import release_fail, release_gate_complete

    system = Actor.system("benchmarks")
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_NAMESPACE, release_id])
        release = Release.objects.select_related("candidate_version").get(pk=release_id)
        if release.state != ReleaseState.BENCHMARKING:
            return f"release {release_id} is {release.state}: nothing to do"
        runs = list(Run.objects.filter(release_id=release_id).select_related("result").order_by("id"))
        if not runs or any(r.state in ACTIVE_STATES for r in runs):
            return f"release {release_id}: runs still active"
        if any(r.state != RunState.SUCCEEDED for r in runs):
            release_fail(release=release, reason=_failure_reason(runs), actor=system)
            return f"release {release_id} failed"
        try:
            gated = _gate(runs, release)
        except Exception as exc:  # bad inputs to the gate end the release with the reason
            log.exception("gate of release %s failed", release_id)
            release_fail(
                release=release, reason=f"the gate could not evaluate the results: {exc}", actor=system
            )
            return f"release {release_id} failed in the gate"
        if gated is None:
            return f"release {release_id}: all runs succeeded; no gate module installed, left in benchmarking"
        verdict, gate_result = gated
        release_gate_complete(release=release, verdict=verdict, gate_result=gate_result, actor=system)
        return f"release {release_id}: gate {verdict}"
