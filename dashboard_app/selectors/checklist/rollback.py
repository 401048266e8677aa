"""Question 6: the way back, only as far as it exists. A rollback acts on the route's
active release (releases_app.services.rollback), so the answer names the version it would
return to, or says there is none (and the badge says *missing*); then the triggers: those
the contract names for an approver, and the live one the acceptance watch acts on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contracts_app.document import rollback_target_of
from contracts_app.document.engines import method_name
from contracts_app.models import ContractVersion, Route
from contracts_app.selectors import speculation_method_sql
from dashboard_app.selectors.checklist.answers import (
    QUESTIONS,
    Answer,
    Evidence,
    audit_url,
    field_evidence,
    join_words,
)
from dashboard_app.selectors.checklist.history import Activation
from dashboard_app.selectors.checklist.watch import live_triggers
from dashboard_app.selectors.history import VersionRow
from live_app.models import Endpoint

_TRIGGERS = {
    "gate_fail": "the benchmark gate fails",
    "output_stability_breach": "outputs stop matching the baseline's",
    "latency_regression": "latency regresses",
    "manual": "an approver decides to",
}


def _named(route: Route, number: int, versions: Sequence[VersionRow] | None) -> tuple[int, int, str] | None:
    """(pk, number, method) of the route's version `number`, from `versions` (every version
    of the route, as `version_history` reads them) when the caller has them: no document."""
    if versions is not None:
        return next(((v.pk, v.number, v.speculation_method) for v in versions if v.number == number), None)
    return (
        ContractVersion.objects.filter(route=route, number=number)
        .annotate(method=speculation_method_sql())
        .values_list("pk", "number", "method")
        .first()
    )


def _target(
    route: Route,
    version: ContractVersion,
    doc: dict[str, Any],
    activation: Activation | None,
    versions: Sequence[VersionRow] | None,
) -> tuple[str, bool]:
    """(the plan in words, whether a rollback has a target now)."""
    to = rollback_target_of(doc)
    if activation is None:
        return (
            f"No rollback target: no release made version {version.number} active, and a rollback acts on "
            "the route's active release",
            False,
        )
    pk = activation.release.pk
    if activation.how == "rolled_back":
        return (
            f"No rollback target: version {version.number} is active because release #{pk} was rolled back, "
            "and a rollback acts on an active release, which this route no longer has. To change the route, "
            "propose a new release: its contract's plan applies once it is active",
            False,
        )
    if to.kind == "speculation_off":
        return "Switch speculation off: the same target, engine and limits with plain decoding", True
    if to.kind == "previous":
        previous = activation.release.baseline_version
        if previous is None:
            return (
                f"No rollback target: the contract returns to the previous version, and release #{pk} was "
                "the route's first, so there is none. To go back, upload the version to return to "
                "and propose it",
                False,
            )
        method = method_name(activation.previous_method or "none")
        return f"Return to the previous version, v{previous.number} ({method})", True
    named = _named(route, to.number or 0, versions)
    if named is None or named[0] == version.pk:
        why = "does not exist on this route" if named is None else "is the active version itself"
        return f"No rollback target: the contract returns to version {to.number}, which {why}", False
    return f"Return to version {named[1]} ({method_name(named[2])})", True


def q6_rollback(
    route: Route,
    version: ContractVersion,
    doc: dict[str, Any],
    activation: Activation | None,
    endpoints: list[Endpoint],
    versions: Sequence[VersionRow] | None = None,
) -> Answer:
    plan, has_target = _target(route, version, doc, activation, versions)
    named = [_TRIGGERS.get(t, t) for t in (doc.get("rollback") or {}).get("when") or []]
    live = live_triggers(version, endpoints)
    parts = [plan + "."]
    if has_target:
        if named:
            parts.append(
                f"The contract names when: {join_words(named)} (an approver's call: SpecPact watches none of "
                "these itself)."
            )
        elif not live.words:
            parts.append("No trigger is named, so only by hand.")
        if live.words:
            parts.append(live.words)
        parts.append("Rollback is one approved action, recorded in the audit trail.")
    elif live.endpoints and live.can_fire and activation is not None and activation.how == "rolled_back":
        parts.append(
            "The acceptance watch still samples the endpoints, but a drop it finds can only be alerted: "
            "there is no active release to propose a rollback from."
        )
    evidence = [
        field_evidence(route, version, "rollback", "rollback"),
        Evidence(
            "audit_event",
            "rollbacks of this route",
            audit_url(route=route.slug, action="release.rolled_back"),
        ),
    ]
    if live.endpoints:
        evidence.append(Evidence("endpoints", "live endpoints", f"/api/v1/routes/{route.slug}/endpoints/"))
    if not has_target:
        status = "missing"
    elif not live.can_fire:
        status = "partial"  # a trigger is written that nothing can act on
    else:
        status = "documented"
    return Answer(QUESTIONS[5], " ".join(parts), status, evidence)
