"""What progressive-delivery tools ask SpecPact: may this release go on?

One reading of a release's state and gate verdict, shaped for two tools:

- Argo Rollouts' `web` metric provider (argoproj/argo-rollouts v1.9.1,
  docs/analysis/web.md; metricproviders/webmetric/webmetric.go): it GETs a URL, takes
  `jsonPath` of the JSON body as `result` and evaluates `successCondition` /
  `failureCondition` on it. Any non-2xx answer is a measurement *Error*, not a failure
  (webmetric.go: "received non 2xx response code"), so the analysis answers 200 with
  `result.phase`. When both conditions are set and neither holds, the measurement is
  *Inconclusive* and the rollout pauses for a person (docs/features/analysis.md,
  "Inconclusive Runs"): SpecPact's marginal verdict maps there, never to Successful.
- Flagger's webhooks (fluxcd/flagger v1.44.0, docs/gitbook/usage/webhooks.md;
  pkg/controller/webhook.go `callWebhook`: a status above 202 is a refusal). For
  `confirm-rollout` and `confirm-promotion` a 2xx lets the canary go on; for `rollback`
  a 2xx means "roll back now" (webhooks.md: "If a rollback hook returns a successful
  HTTP status code, Flagger will stop the analysis and mark the canary release as
  failed").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts_app.permissions import ensure_route_access
from kernel.errors import NotFound
from live_app.choices import AlertState
from live_app.models import AcceptanceAlert
from releases_app.choices import DecisionKind, GateVerdict, ReleaseState
from releases_app.models import Release
from releases_app.selectors import release_get, release_list

# Argo's AnalysisRun phases (pkg/apis/rollouts/v1alpha1/types.go AnalysisPhase): the
# shipped AnalysisTemplate compares `result.phase` with these strings.
SUCCESSFUL = "Successful"
FAILED = "Failed"
INCONCLUSIVE = "Inconclusive"

_S = ReleaseState
_ENDED_BADLY = (_S.REJECTED, _S.FAILED, _S.CANCELLED, _S.ROLLED_BACK, _S.SUPERSEDED)
_WAITING = (_S.PROPOSED, _S.BENCHMARKING, _S.AWAITING_REVIEW)
_DECIDED = (_S.APPROVED, _S.ACTIVE)

# The per-check fields shown to a tool: the measured value, its interval and the bar.
_CHECK_FIELDS = (
    "rule_id",
    "kind",
    "lane",
    "level_kind",
    "level",
    "metric",
    "estimate",
    "ci_low",
    "ci_high",
    "confidence",
    "required",
    "verdict",
    "reason",
)


def _check(check: dict[str, Any]) -> dict[str, Any]:
    shown = {k: check.get(k) for k in _CHECK_FIELDS}
    if check.get("compared"):  # measurement.history: the earlier version compared with
        shown["compared"] = check["compared"]
    return shown


@dataclass(frozen=True)
class Phase:
    phase: str
    reason: str


def four_eyes_approval(release: Release) -> Any | None:
    """The approval decision by someone other than the proposer (the database refuses any
    other), or None."""
    return (
        release.decisions.filter(kind=DecisionKind.APPROVE, decided_by__isnull=False)
        .exclude(decided_by=release.proposed_by_id)
        .order_by("-created_at", "-id")
        .first()
    )


def release_phase(release: Release) -> Phase:
    """Successful only for an approved or active release whose gate passed (or had nothing
    to measure: a first release or a cosmetic change); marginal, and a failed gate approved
    with an override, are Inconclusive: a person decides in the tool."""
    state, verdict = release.state, release.gate_verdict
    if state in _ENDED_BADLY:
        why = f": {release.failure_reason}" if release.failure_reason else ""
        return Phase(FAILED, f"release {release.pk} is {release.get_state_display()}{why}")
    if verdict == GateVerdict.FAIL and state not in _DECIDED:
        return Phase(FAILED, f"the gate failed: {_summary(release)}")
    if state in _WAITING:
        gate = f"; the gate is {verdict}: {_summary(release)}" if verdict else ""
        return Phase(
            INCONCLUSIVE, f"release {release.pk} is {release.get_state_display()}, not decided yet{gate}"
        )
    if verdict == GateVerdict.FAIL:
        return Phase(INCONCLUSIVE, "approved over a failed gate with an override: promote or abort by hand")
    if verdict == GateVerdict.MARGINAL:
        return Phase(INCONCLUSIVE, f"the gate is marginal: {_summary(release)}")
    if verdict == GateVerdict.PASS:
        return Phase(SUCCESSFUL, f"release {release.pk} is {release.get_state_display()} and the gate passed")
    return Phase(
        SUCCESSFUL, f"release {release.pk} is {release.get_state_display()}; no benchmark was needed"
    )


def _summary(release: Release) -> str:
    return str((release.gate_result or {}).get("summary") or release.gate_verdict)


def release_analysis(release: Release) -> dict[str, Any]:
    """The analysis body: the gate's verdict, each rule and each check (value, interval,
    required bound) as the gate stored them (`benchmarks_app.gate.result.GateResult.as_dict`)."""
    gate = release.gate_result or {}
    phase = release_phase(release)
    baseline = release.baseline_version
    return {
        "release": release.pk,
        "route": release.route.slug,
        "state": release.state,
        "baseline_version": baseline.number if baseline is not None else None,
        "candidate_version": release.candidate_version.number,
        "verdict": release.gate_verdict,
        "result": {"phase": phase.phase, "reason": phase.reason},
        "summary": gate.get("summary"),
        "rules": list(gate.get("rules") or []),
        "checks": [_check(c) for c in gate.get("checks") or []],
    }


def route_active_release(*, subject: Any, slug: str) -> Release:
    """The release that made the route's active version active."""
    ensure_route_access(subject, slug)
    release = release_list(subject=subject).filter(route__slug=slug, state=_S.ACTIVE).first()
    if release is None:
        raise NotFound(f"Route {slug!r} has no active release.")
    return release


def canary_release(*, subject: Any, route: str, release_id: int | None) -> Release:
    """The release a Flagger canary stands for: `release` from its metadata when given
    (and on that route), else the route's newest release."""
    ensure_route_access(subject, route)
    if release_id is not None:
        release = release_get(subject=subject, release_id=release_id)
        if release.route.slug != route:
            raise NotFound(f"Release {release_id} is not on route {route!r}.")
        return release
    newest = release_list(subject=subject).filter(route__slug=route).first()
    if newest is None:
        raise NotFound(f"Route {route!r} has no release.")
    return newest


# Flagger's three gates: (allowed, reason). -----------------------------------------------


def confirm_rollout(release: Release) -> tuple[bool, str]:
    if release.state not in _DECIDED:
        return False, f"release {release.pk} is {release.get_state_display()}, not approved"
    approval = four_eyes_approval(release)
    if approval is None:
        return False, f"release {release.pk} has no approval by someone other than its proposer"
    return True, f"release {release.pk} was approved by {approval.actor_label}"


def confirm_promotion(release: Release) -> tuple[bool, str]:
    allowed, reason = confirm_rollout(release)
    if not allowed:
        return allowed, reason
    phase = release_phase(release)
    return phase.phase == SUCCESSFUL, phase.reason


def live_alerts(release: Release) -> list[AcceptanceAlert]:
    """Open acceptance alerts on the route's endpoints serving the release's candidate."""
    return list(
        AcceptanceAlert.objects.filter(
            endpoint__route_id=release.route_id,
            version_id=release.candidate_version_id,
            state__in=(AlertState.OPEN, AlertState.PROPOSED),
        ).select_related("endpoint")
    )


def rollback_now(release: Release) -> tuple[bool, str]:
    """True: Flagger should roll the canary back."""
    if release.state in _ENDED_BADLY:
        return True, release_phase(release).reason
    alerts = live_alerts(release)
    if alerts:
        first = alerts[0]
        return True, f"acceptance alert on endpoint {first.endpoint.name}: {first.reason}"
    return False, f"release {release.pk} is {release.get_state_display()} and no live alert is open"
