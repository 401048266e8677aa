"""Question 1's "how it got there": the release that made the active version active and
how (benchmarked and passed, approved over a marginal or failed gate, activated without a
benchmark, or returned to by a rollback), each in words with who and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from audit_app.models import AuditEvent
from benchmarks_app.gate.wording import decided_by
from contracts_app.document.engines import method_name
from contracts_app.models import ContractVersion, Route
from contracts_app.selectors import speculation_method_sql
from dashboard_app.selectors.checklist.answers import QUESTIONS, Answer, Evidence, audit_url, field_evidence
from dashboard_app.selectors.verdict import deciding
from releases_app.choices import DecisionKind, GateVerdict, ReleaseState
from releases_app.models import Decision, Release


@dataclass(frozen=True)
class Activation:
    """How the active version got there: the approval of `release` (how "approved"), or
    the rollback of `release` (how "rolled_back"), by `by`, with the decision's words."""

    release: Release
    how: str
    by: str | None
    decision: Decision | None
    # The method of the release's baseline (Q6's "return to the previous version"), read in
    # SQL: the release comes without its versions' documents. None without a baseline.
    previous_method: str | None = None


# What Q1 and Q6 show of the activating release: its versions' numbers, not their documents
# (two contract documents decoded per view for two numbers and one method, issue 26).
_RELEASE_SHOWN = (
    "id",
    "route",
    "state",
    "gate_verdict",
    "gate_result",
    "baseline_version",
    "baseline_version__number",
    "candidate_version",
    "candidate_version__number",
    "proposed_by",
    "proposed_by__username",
)


def activating_release(route: Route, version: ContractVersion) -> Activation | None:
    """The latest release that changed the route's active version: its approval made
    `version` active, or its rollback returned the route to `version`."""
    release = (
        Release.objects.filter(route=route, state__in=[ReleaseState.ACTIVE, ReleaseState.ROLLED_BACK])
        .select_related("baseline_version", "candidate_version", "proposed_by")
        .only(*_RELEASE_SHOWN)
        .annotate(previous_method=speculation_method_sql("baseline_version__"))
        .order_by("-id")
        .first()
    )
    if release is None:
        return None
    how = "approved" if release.state == ReleaseState.ACTIVE else "rolled_back"
    if how == "approved" and release.candidate_version_id != version.pk:
        return None
    kind = DecisionKind.APPROVE if how == "approved" else DecisionKind.ROLLBACK
    decision = (
        Decision.objects.filter(release=release, kind=kind)
        .select_related("decided_by")
        .order_by("-id")
        .first()
    )
    who = decision.decided_by.get_username() if decision and decision.decided_by else None
    previous = str(getattr(release, "previous_method", "none")) if release.baseline_version_id else None
    return Activation(release, how, who, decision, previous)


def release_evidence(route: Route, activation: Activation | None) -> list[Evidence]:
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


def _quoted(text: str | None) -> str:
    return f"“{text.strip()}”" if text and text.strip() else ""


def _skipped_why(release: Release) -> str:
    """Why releases_app skipped the benchmark (releases_app.services.proposals._needs_benchmark)."""
    if release.baseline_version is None:
        return "it was the route's first release, with nothing to benchmark against"
    return f"its change from v{release.baseline_version.number} is cosmetic only (descriptions and notes)"


def _proposal_reason(release: Release) -> str:
    """The reason the proposer gave, from the proposal's audit event ("" when none)."""
    reason = (
        AuditEvent.objects.filter(object_type="release", object_id=str(release.pk), action="release.proposed")
        .values_list("reason", flat=True)
        .first()
    )
    return str(reason or "")


def _gate_words(gate: dict[str, Any] | None) -> str:
    """The verdict's deciding sentence ('Decided by …: 2.34× [1.41, 6.72], n=16 per arm,
    required ≥ 1.2× (…)'), the release page's own words."""
    if not gate:
        return ""
    rule, check = deciding(gate)
    if rule is None:
        return str(gate.get("summary") or "")
    return decided_by(
        str(rule.get("description") or rule.get("rule_id")), check, str(rule.get("reason") or "")
    )


def how_active(activation: Activation) -> str:
    """The sentence Q1 ends with: how the active version became active, in words."""
    release, decision = activation.release, activation.decision
    pk = release.pk
    by = f" by {activation.by}" if activation.by else ""
    reason = _quoted(decision.reason if decision else "")
    if activation.how == "rolled_back":
        what = f"v{release.candidate_version.number}" if release.candidate_version else "its candidate"
        said = f": {reason}" if reason else ""
        return f" Active again since release #{pk} ({what}) was rolled back{by}{said}."
    proposer = release.proposed_by.get_username() if release.proposed_by else "its proposer"
    if release.gate_verdict is None:
        given = _quoted(_proposal_reason(release))
        given = f" ({proposer}'s reason: {given})" if given else ""
        return (
            f" Active since release #{pk}, approved{by} without a benchmark: it skipped the benchmark when "
            f"{proposer} proposed it, because {_skipped_why(release)}{given}. No gate measured this version "
            "before it went live."
        )
    gate = _gate_words(release.gate_result)
    gate = f" {gate}" if gate else ""
    if release.gate_verdict == GateVerdict.PASS:
        return f" Active since release #{pk}, approved{by} after its benchmark passed the gate.{gate}"
    if decision is not None and decision.override:
        return (
            f" Active since release #{pk}, approved{by} over a failed gate, with an override: "
            f"{_quoted(decision.justification)}.{gate}"
        )
    said = f", saying {reason}" if reason else ""
    return (
        f" Active since release #{pk}, approved{by} over a marginal gate (not enough evidence either way)"
        f"{said}.{gate}"
    )


def q1_method(
    route: Route, version: ContractVersion, doc: dict[str, Any], activation: Activation | None
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
    if activation is not None:
        text += how_active(activation)
    else:
        text += f" No release records how version {version.number} became active."
    return Answer(
        QUESTIONS[0],
        text,
        "documented",
        [field_evidence(route, version, "speculation", "speculation"), *release_evidence(route, activation)],
    )
