"""The end of a release's benchmark: when its last run has ended, fail the release if any
run did not succeed, else evaluate the gate on the results and move the release to review
with the verdict.

benchmarks_app says that a run ended (its `run_finished` signal, after the run's commit);
releases_app's receiver sends the conclusion to the control-plane worker
(`releases_app.tasks.release_conclude_task`), which runs `release_conclude` here, so the
gate's bootstrap and the endpoints' re-probe never hold the worker's result upload. What
the gate reads comes from benchmarks_app's `release_gate_input`. A release left behind (a
message lost, a process that died between a run's commit and the signal) is concluded by
the periodic `releases_conclude_left_behind`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from django.db import connection, transaction

from audit_app.actors import Actor
from benchmarks_app.choices import ACTIVE_STATES, RunState
from benchmarks_app.gate import (
    EarlierVersion,
    GateRules,
    arm_levels_from_harness,
    evaluate_gate,
    gate_input_from_harness,
)
from benchmarks_app.models import Run
from benchmarks_app.selectors import ReleaseGateInput, release_gate_input, runs_of_release
from releases_app.choices import ReleaseState
from releases_app.models import Release
from releases_app.selectors import approved_before
from releases_app.services.endpoints import endpoint_drift_after
from releases_app.services.proposals import release_fail, release_gate_complete

log = logging.getLogger(__name__)

# Serializes the conclusion of one release across processes (PostgreSQL advisory lock;
# SQLite has one writer anyway). Any constant works: it only namespaces the lock.
_LOCK_NAMESPACE = 0x5BE_4C4


def release_conclude_quietly(*, release_id: int) -> None:
    try:
        release_conclude(release_id=release_id)
    except Exception:  # the periodic pass concludes it later; the run's own commit stands
        log.exception("concluding release %s failed; the periodic pass will retry", release_id)


def _failure_reason(bad: list[Run]) -> str:
    parts = [f"run {r.pk} (lane {r.lane}) {r.state}: {r.last_error or 'no reason given'}" for r in bad]
    return "benchmark did not complete: " + "; ".join(parts)


def _gate(inputs: ReleaseGateInput, release: Release) -> tuple[str, dict[str, Any]]:
    """(verdict, gate result as JSON)."""
    data = gate_input_from_harness(baseline=inputs.arm("baseline"), candidate=inputs.arm("candidate"))
    rules = GateRules.from_measurement(release.candidate_version.document.get("measurement", {}))
    if rules.history is not None:
        data = replace(data, history=_earlier_versions(release, rules.history.versions))
    result = evaluate_gate(data, rules, seed=release.pk)
    return str(result.verdict.value), result.as_dict()


def _earlier_versions(release: Release, versions: int) -> list[EarlierVersion]:
    """The route's last approved versions with their own benchmarks' candidate arm (the
    stored results of their releases' succeeded runs; none for a version approved
    without a benchmark), for `measurement.history`."""
    out = []
    for earlier in approved_before(release, versions=versions):
        inputs = release_gate_input(earlier.pk)
        stored = inputs.arm("candidate")
        arms = [a for lane, result in stored.items() for a in arm_levels_from_harness(result, lane=lane)]
        # A lane whose raw samples the retention setting pruned has no arm: the history
        # check says so (benchmarks_app/gate/history.py), never compares with nothing.
        pruned = {lane: f"{at:%Y-%m-%d}" for lane, at in inputs.pruned.items()}
        out.append(EarlierVersion(earlier.candidate_version.number, earlier.pk, arms, pruned))
    return out


def _pruned_reason(inputs: ReleaseGateInput) -> str:
    lanes = ", ".join(f"lane {lane} on {at:%Y-%m-%d}" for lane, at in sorted(inputs.pruned.items()))
    return (
        f"the gate has no raw samples to evaluate: the retention setting (RAW_SAMPLES_RETENTION_DAYS) "
        f"pruned them ({lanes}) before the release was concluded"
    )


def _endpoints_drift(release_id: int) -> str | None:
    """A release benchmarked on live endpoints whose runs all succeeded: are the endpoints
    still serving what they were probed serving at the start? Probed before the lock below
    (requests go out; each probe ends within ENDPOINT_PROBE_TIMEOUT_S)."""
    release = (
        Release.objects.filter(pk=release_id, state=ReleaseState.BENCHMARKING).exclude(endpoints={}).first()
    )
    runs = runs_of_release(release_id)
    if release is None or not runs.exists() or runs.exclude(state=RunState.SUCCEEDED).exists():
        return None
    return endpoint_drift_after(release=release)


def release_conclude(*, release_id: int) -> str:
    """What it did, in words (for logs and the periodic pass's report)."""
    system = Actor.system("benchmarks")
    drift = _endpoints_drift(release_id)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_NAMESPACE, release_id])
        release = Release.objects.select_related("candidate_version").get(pk=release_id)
        if release.state != ReleaseState.BENCHMARKING:
            return f"release {release_id} is {release.state}: nothing to do"
        inputs = release_gate_input(release_id)
        if not inputs.ended:
            return f"release {release_id}: runs still active"
        if inputs.unsucceeded:
            release_fail(release=release, reason=_failure_reason(inputs.unsucceeded), actor=system)
            return f"release {release_id} failed"
        if drift is not None:
            release_fail(release=release, reason=drift, actor=system)
            return f"release {release_id} failed: its endpoints drifted"
        if inputs.pruned:
            release_fail(release=release, reason=_pruned_reason(inputs), actor=system)
            return f"release {release_id} failed: its raw samples were pruned"
        try:
            verdict, gate_result = _gate(inputs, release)
        except Exception as exc:  # bad inputs to the gate end the release with the reason
            log.exception("gate of release %s failed", release_id)
            release_fail(
                release=release, reason=f"the gate could not evaluate the results: {exc}", actor=system
            )
            return f"release {release_id} failed in the gate"
        release_gate_complete(
            release=release, verdict=verdict, gate_result=gate_result, judged=inputs.judged(), actor=system
        )
        return f"release {release_id}: gate {verdict}"


def releases_conclude_left_behind() -> list[int]:
    """Releases still benchmarking whose runs have all ended: the signal after a run's
    commit was lost with its process. Returns the ids it tried."""
    ids = list(
        Release.objects.filter(state=ReleaseState.BENCHMARKING, runs__isnull=False)
        .exclude(runs__state__in=list(ACTIVE_STATES))  # any run still active keeps it out
        .values_list("id", flat=True)
        .distinct()
    )
    for release_id in ids:
        release_conclude_quietly(release_id=release_id)
    return ids
