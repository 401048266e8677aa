"""Questions 1 and 6: what is active and how it got there, and the way back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from contracts_app.document import rollback_target_of
from contracts_app.document.engines import method_name
from contracts_app.models import ContractVersion, Route
from dashboard_app.selectors.checklist.answers import (
    QUESTIONS,
    Answer,
    Evidence,
    audit_url,
    field_evidence,
    join_words,
)
from releases_app.choices import ReleaseState
from releases_app.models import Decision, Release

_TRIGGERS = {
    "gate_fail": "the benchmark gate fails",
    "output_stability_breach": "outputs stop matching the baseline's",
    "latency_regression": "latency regresses",
    "manual": "an approver decides to",
}
# A prompt set this small is a demo, not a workload.


@dataclass(frozen=True)
class _Activation:
    """How the active version got there: the approval of `release` (how "approved"), or
    the rollback of `release` (how "rolled_back"), by `by`."""

    release: Release
    how: str
    by: str | None


def activating_release(route: Route, version: ContractVersion) -> _Activation | None:
    """The latest release that changed the route's active version: its approval made
    `version` active, or its rollback returned the route to `version`."""
    release = (
        Release.objects.filter(route=route, state__in=[ReleaseState.ACTIVE, ReleaseState.ROLLED_BACK])
        .select_related("baseline_version")
        .order_by("-id")
        .first()
    )
    if release is None:
        return None
    how = "approved" if release.state == ReleaseState.ACTIVE else "rolled_back"
    if how == "approved" and release.candidate_version_id != version.pk:
        return None
    kind = "approve" if how == "approved" else "rollback"
    decision = (
        Decision.objects.filter(release=release, kind=kind)
        .select_related("decided_by")
        .order_by("-id")
        .first()
    )
    who = decision.decided_by.get_username() if decision and decision.decided_by else None
    return _Activation(release, how, who)


def _release_evidence(route: Route, activation: _Activation | None) -> list[Evidence]:
    if activation is None:
        return []
    pk = activation.release.pk
    return [
        Evidence("release", f"release #{pk}", reverse("release-detail", args=[pk])),
        Evidence(
            "audit_event",
            f"audit trail of release #{pk}",
            audit_url(route=route.slug, object=f"release:{pk}"),
        ),
    ]


def q1_method(
    route: Route, version: ContractVersion, doc: dict[str, Any], activation: _Activation | None
) -> Answer:
    spec = doc.get("speculation") or {}
    method = str(spec.get("method", "none"))
    target = doc.get("target") or {}
    engine = f"{target.get('engine')} {target.get('engine_version') or ''}".strip()
    if method == "none":
        text = f"None: speculation is off. Version {version.number} serves {target.get('model')} on {engine}."
    else:
        tokens = spec.get("num_speculative_tokens")
        text = (
            f"{method_name(method).capitalize()} ({method}), "
            f"{tokens} speculative tokens per step, on {engine} serving {target.get('model')} "
            f"(contract version {version.number})."
        )
    if activation is not None and activation.how == "approved":
        by = f", approved by {activation.by}" if activation.by else ""
        text += f" Active since release #{activation.release.pk}{by}."
    elif activation is not None:
        by = f" by {activation.by}" if activation.by else ""
        text += f" Active again since release #{activation.release.pk} was rolled back{by}."
    elif route.active_since is None:
        text += " How it became active is not recorded."
    return Answer(
        QUESTIONS[0],
        text,
        "documented",
        [field_evidence(route, version, "speculation", "speculation"), *_release_evidence(route, activation)],
    )


def q6_rollback(
    route: Route, version: ContractVersion, doc: dict[str, Any], activation: _Activation | None
) -> Answer:
    rollback = doc.get("rollback") or {}
    to = rollback_target_of(doc)
    if to.kind == "speculation_off":
        plan = "Switch speculation off: the same target, engine and limits with plain decoding"
    elif activation is not None and activation.how == "rolled_back":
        plan = (
            f"None in force: version {version.number} came back by rolling back release "
            f"#{activation.release.pk}, and no release is active to roll back; a change is a new release"
        )
    elif to.kind == "previous":
        previous = activation.release.baseline_version if activation else None
        if previous is not None:
            method = previous.speculation_method
            plan = f"Return to the previous version, v{previous.number} ({method_name(method)})"
        else:
            plan = (
                "Return to the previous version (none is recorded for this route yet, "
                "so a rollback has no target)"
            )
    else:
        plan = f"Return to version {to.number}"
    triggers = [_TRIGGERS.get(t, t) for t in rollback.get("when") or []]
    text = plan + (
        f", when {join_words(triggers)}." if triggers else "; no trigger is named, so only by hand."
    )
    text += " Rollback is one approved action, recorded in the audit trail."
    evidence = [
        field_evidence(route, version, "rollback", "rollback"),
        Evidence(
            "audit_event",
            "rollbacks of this route",
            audit_url(route=route.slug, action="release.rolled_back"),
        ),
    ]
    missing_target = (activation is not None and activation.how == "rolled_back") or (
        to == "previous" and (activation is None or activation.release.baseline_version is None)
    )
    return Answer(QUESTIONS[5], text, "partial" if missing_target else "documented", evidence)
