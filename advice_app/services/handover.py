"""Handed over, not applied (issue 24 point 3): a finished advice's recommendation becomes
a draft contract version, with its diff against the active one and the advice as its
evidence in the version's `notes`; proposing it opens an ordinary release, whose gate
measures again on fresh samples (the advice is never its own proof)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from accounts_app.permissions import ensure_route_access, require_role
from advice_app.choices import AdviceState
from advice_app.measure import lane_levels
from advice_app.models import AdviceRun
from advice_app.variants import candidate_document, speculation_off_document, token_schedule
from audit_app.actors import as_actor
from audit_app.services import audit_record
from contracts_app.document import diff_documents, normalize, validate_document
from contracts_app.models import ContractVersion
from contracts_app.services import contract_version_create
from kernel.errors import Conflict
from kernel.text import REASON_MAX, checked_text
from releases_app.models import Release
from releases_app.services import release_create

NOTES_MAX = 20000  # the format's bound on `notes` (schema.ContractDocument)


@dataclass(frozen=True)
class Draft:
    advice: AdviceRun
    version: ContractVersion
    diff_from_active: list[dict[str, Any]]
    notes: list[str]  # what the draft could not say, in words (also in the version's notes)
    created: bool = True  # False: the advice's draft from before


def _locked(advice: AdviceRun, actor: Any) -> AdviceRun:
    who = as_actor(actor)
    require_role(who, "operator")
    ensure_route_access(who, advice.route_id and advice.route, missing=f"No advice run {advice.pk}.")
    return AdviceRun.objects.select_for_update().select_related("route", "based_on").get(pk=advice.pk)


def _one_configuration(advice: AdviceRun) -> dict[str, Any] | None:
    """The candidate every lane recommends (None: speculation off). A contract runs one
    configuration on all its lanes: lanes that disagree are said, not merged."""
    chosen = {lane: (rec.get("chosen") or {}).get("name") for lane, rec in advice.recommendations.items()}
    if len(set(chosen.values())) > 1:
        said = "; ".join(f"{lane}: {name or 'speculation off'}" for lane, name in chosen.items())
        raise Conflict(
            f"the lanes' recommendations differ ({said}) and one contract runs one configuration on all "
            "its lanes: run the advice per lane, or draft by hand from one lane's answer",
            code="advice_lanes_disagree",
        )
    name = next(iter(chosen.values()))
    return next(c for c in advice.candidates if c["name"] == name) if name else None


def _schedule(
    advice: AdviceRun, candidate: dict[str, Any], document: dict[str, Any]
) -> tuple[list[Any], str]:
    """The token schedule the lanes agree on (empty: none needed or none possible) and why, in words."""
    schedules = {
        lane: rec["schedule"]
        for lane, rec in advice.recommendations.items()
        if len(rec.get("schedule") or []) > 1
    }
    crossings = {
        lane: rec["crossover"]["level"]
        for lane, rec in advice.recommendations.items()
        if (rec.get("crossover") or {}).get("level") is not None
    }
    if not schedules:
        if crossings and not candidate["schedulable"]:
            at = ", ".join(f"{lane} from concurrency {lv:g}" for lane, lv in crossings.items())
            engine = f"{advice.engine} {advice.engine_release}".strip()
            return [], (
                f"its speedup vanishes at higher load ({at}), but {engine} takes no token schedule for "
                f"{candidate['method']}: the contract cannot express fewer tokens or speculation off above "
                "that load, so the draft runs the candidate at every load"
            )
        return [], ""
    if len({repr(s) for s in schedules.values()}) > 1:
        return [], "the lanes' token schedules differ; the draft carries none (one contract, one schedule)"
    lane, steps = next(iter(schedules.items()))
    batching = (document.get("compatibility") or {}).get("batching") or {}
    out = token_schedule(steps, lane_levels(advice, lane), int(batching.get("max_batch_size") or 1))
    if len(out) < 2:
        return [], ""
    words = ", then ".join(
        f"up to batch {s['up_to_batch_size']}: {s['num_speculative_tokens'] or 'no'} tokens" for s in out
    )
    return out, f"token schedule from lane {lane} (concurrency read as batch size): {words}"


def _evidence(advice: AdviceRun, said: list[str]) -> str:
    lines = [
        f"Drafted by SpecPact from advice run {advice.pk} (GET /api/v1/advice/{advice.pk}/), measured on "
        f"version {advice.based_on.number}. Handed over, not applied: proposing it runs the gate again on "
        "fresh samples.",
        *(f"Lane {lane}: {rec['summary']}" for lane, rec in advice.recommendations.items()),
        *said,
    ]
    return "\n".join(lines)


def advice_draft_create(*, advice: AdviceRun, actor: Any) -> Draft:
    """The recommendation as the route's next contract version (a draft: nothing changes
    until a release of it is approved). Again for the same advice: the same draft."""
    who = as_actor(actor)
    with transaction.atomic():
        locked = _locked(advice, who)
        if locked.state != AdviceState.FINISHED:
            raise Conflict(
                f"advice run {locked.pk} is {locked.state}: only a finished one has a recommendation",
                code="advice_not_finished",
            )
        route = locked.route
        if route.active_version_id != locked.based_on_id:
            raise Conflict(
                f"the route's active version changed since the advice was measured on version "
                f"{locked.based_on.number}: the advice is stale; run a new one",
                code="advice_stale",
            )
        active = locked.based_on.document
        if locked.draft_version is not None:
            changes = [c.as_dict() for c in diff_documents(active, locked.draft_version.document)]
            return Draft(locked, locked.draft_version, changes, [], created=False)
        candidate = _one_configuration(locked)
        said: list[str] = []
        if candidate is None:
            if (active.get("speculation") or {}).get("method", "none") == "none":
                raise Conflict(
                    "the recommendation is speculation off, which the active version already runs: "
                    "nothing to draft",
                    code="advice_nothing_to_draft",
                )
            document = speculation_off_document(active)
        else:
            document = candidate_document(active, candidate)
            schedule, words = _schedule(locked, candidate, active)
            if schedule:
                document["speculation"].setdefault("params", {})["token_schedule"] = schedule
            if words:
                said.append(words)
            tied = [t for rec in locked.recommendations.values() for t in rec.get("tied") or []]
            if tied:
                said.append(
                    "can't tell it from "
                    + ", ".join(t["candidate"] for t in tied)
                    + ": the cheaper was chosen"
                )
        if normalize(validate_document(document)) == normalize(validate_document(active)):
            raise Conflict(
                "the recommendation is what the active version already runs: nothing to draft",
                code="advice_nothing_to_draft",
            )
        previous = active.get("notes")
        document["notes"] = (_evidence(locked, said) + (f"\n\n{previous}" if previous else ""))[:NOTES_MAX]
        upload = contract_version_create(
            slug=route.slug, document=document, source_format="generated", actor=who
        )
        locked.draft_version = upload.version
        locked.save(update_fields=["draft_version"])
        audit_record(
            actor=who,
            action="advice.draft",
            obj_type="advice",
            obj_id=locked.pk,
            route=route,
            after={"version": upload.version.number, "changes": [c["path"] for c in upload.diff_from_active]},
        )
        return Draft(locked, upload.version, upload.diff_from_active, said)


def advice_propose(*, advice: AdviceRun, actor: Any, reason: str = "") -> Release:
    """Open an ordinary release of the advice's draft: the gate benchmarks it again."""
    who = as_actor(actor)
    reason = checked_text(reason, field="reason", max_length=REASON_MAX)
    with transaction.atomic():
        locked = _locked(advice, who)
        if locked.draft_version is None:
            raise Conflict(
                f"advice run {locked.pk} has no draft version yet: draft it first", code="advice_no_draft"
            )
        if locked.release_id is not None:
            raise Conflict(
                f"advice run {locked.pk}'s draft was proposed already (release {locked.release_id})",
                code="advice_proposed",
                extensions={"release": locked.release_id},
            )
        release = release_create(
            route=locked.route,
            candidate_version=locked.draft_version,
            actor=who,
            reason=reason or f"the recommendation of advice run {locked.pk}",
        )
        locked.release = release
        locked.save(update_fields=["release"])
        audit_record(
            actor=who,
            action="advice.propose",
            obj_type="advice",
            obj_id=locked.pk,
            route=locked.route,
            after={"release": release.pk, "version": locked.draft_version.number},
            reason=reason,
        )
    return release
