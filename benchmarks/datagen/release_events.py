"""Releases once the gate has run: their rows, their decisions (an approval of a failed
gate carries the override and its justification, as the four-eyes and override CHECKs
demand), and their audit events with the `snapshot` the services record before and after
each move."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from benchmarks.datagen.audit import Journal
from benchmarks.datagen.plan import MICROSECOND, ReleasePlan
from releases_app.choices import TRANSITIONS
from releases_app.services.transitions import snapshot


def _snap(release: ReleasePlan, state: str, verdict: str | None) -> dict[str, Any]:
    view = SimpleNamespace(
        state=state,
        gate_verdict=verdict,
        baseline_version=SimpleNamespace(number=release.baseline.number) if release.baseline else None,
        candidate_version=SimpleNamespace(number=release.candidate.number),
    )
    return snapshot(view)  # type: ignore[arg-type]


def _resolve(extra: dict[str, Any] | None) -> dict[str, Any]:
    return {k: (v.id if isinstance(v, ReleasePlan) else v) for k, v in (extra or {}).items()}


def overridden(release: ReleasePlan) -> bool:
    return release.verdict == "fail"


def release_row(release: ReleasePlan) -> dict[str, Any]:
    moves = [t for t in release.transitions if t.name != "propose"]
    return {
        "id": release.id,
        "route_id": release.route_id,
        "baseline_version_id": release.baseline.id if release.baseline else None,
        "candidate_version_id": release.candidate.id,
        "state": release.state,
        "proposed_by_id": release.proposer.id,
        "created_at": release.created_at,
        "updated_at": moves[-1].at if moves else release.created_at,
        # The gate's verdict is written once the results it reads exist (generate.py).
        "gate_verdict": None,
        "gate_result": None,
        "diff": release.diff,
        "failure_reason": release.failure_reason,
        "lock_version": 1 + len(moves),
    }


def decision_rows(release: ReleasePlan, first_id: int) -> list[dict[str, Any]]:
    rows = []
    for i, d in enumerate(release.decisions):
        override = d.kind == "approve" and overridden(release)
        rows.append(
            {
                "id": first_id + i,
                "release_id": release.id,
                "kind": d.kind,
                "decided_by_id": d.who.id,
                "actor_label": d.who.api.label,
                "proposed_by_id": release.proposer.id,
                "reason": d.reason,
                "override": override,
                "justification": d.justification_if_failed if override else "",
                "created_at": d.at,
            }
        )
    return rows


def record_events(journal: Journal, release: ReleasePlan) -> None:
    """Every event of the release, in its order, as `release_create` and `move` write them."""
    state, verdict = "proposed", None
    for t in release.transitions:
        if t.name == "propose":
            after = {**_snap(release, state, verdict), "changes": len(release.diff)}
            journal.record(
                t.at,
                t.who,
                "release.proposed",
                "release",
                release.id,
                route=release.route,
                after=after,
                reason=t.reason,
                request_id=t.request_id,
            )
            continue
        move = TRANSITIONS[t.name]
        before = _snap(release, state, verdict)
        state = move.target
        if t.name == "complete_gate":
            verdict = release.verdict
        extra = _resolve(t.extra_after)
        approval = next((d for d in release.decisions if d.kind == "approve"), None)
        if t.name == "approve" and approval is not None and overridden(release):
            extra = {"override": True, "justification": approval.justification_if_failed}
        journal.record(
            t.at,
            t.who,
            move.action,
            "release",
            release.id,
            route=release.route,
            before=before,
            after={**_snap(release, state, verdict), **extra},
            reason=t.reason,
            request_id=t.request_id,
        )
        if t.name == "approve" and approval is not None and overridden(release):
            journal.record(
                t.at + MICROSECOND,
                t.who,
                "release.overridden",
                "release",
                release.id,
                route=release.route,
                before={"gate_verdict": verdict},
                after={"override": True, "justification": approval.justification_if_failed},
                reason=t.reason,
                request_id=t.request_id,
            )
