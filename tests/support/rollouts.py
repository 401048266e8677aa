"""Releases in every state a progressive-delivery gate can meet, built through the real
services on `contract-summaries` (version 1 active through release 1), and what the
Argo analysis and the three Flagger hooks must answer for each.

`approved` is set on the row: approval activates in the same transaction
(`releases_app.services.decisions.release_approve`), so no service leaves a release there;
the gates must still answer it (an approval whose activation is not yet visible)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework.test import APIClient

from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import (
    release_approve,
    release_cancel,
    release_create,
    release_fail,
    release_gate_complete,
    release_reject,
    release_rollback,
)
from tests.support.actors import Caller
from tests.support.factories import make_user
from tests.support.gates import gate_result
from tests.support.releases import cosmetic_change, route_identity_change

JUSTIFICATION = "measured on the real lane by hand; the gate's lane was misconfigured"


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Route, Any, Any], Release]
    state: str
    phase: str  # Argo: result.phase
    confirm_rollout: bool
    confirm_promotion: bool
    rollback: bool


def _benchmarking(route: Route, proposer: Any, approver: Any) -> Release:
    return release_create(route=route, candidate_version=route_identity_change(route).number, actor=proposer)


def _reviewable(verdict: str) -> Callable[[Route, Any, Any], Release]:
    def build(route: Route, proposer: Any, approver: Any) -> Release:
        release = _benchmarking(route, proposer, approver)
        return release_gate_complete(release=release, verdict=verdict, gate_result=gate_result(verdict))

    return build


def _active(verdict: str, **approval: Any) -> Callable[[Route, Any, Any], Release]:
    def build(route: Route, proposer: Any, approver: Any) -> Release:
        release = _reviewable(verdict)(route, proposer, approver)
        return release_approve(release=release, actor=approver, reason="read the evidence", **approval)

    return build


def _proposed(route: Route, proposer: Any, approver: Any) -> Release:
    release = _benchmarking(route, proposer, approver)
    Release.objects.filter(pk=release.pk).update(state="proposed")
    return Release.objects.get(pk=release.pk)


def _approved(route: Route, proposer: Any, approver: Any) -> Release:
    release = _active("pass")(route, proposer, approver)
    Release.objects.filter(pk=release.pk).update(state="approved")
    return Release.objects.get(pk=release.pk)


def _awaiting_cosmetic(route: Route, proposer: Any, approver: Any) -> Release:
    return release_create(route=route, candidate_version=cosmetic_change(route).number, actor=proposer)


def _active_cosmetic(route: Route, proposer: Any, approver: Any) -> Release:
    release = _awaiting_cosmetic(route, proposer, approver)
    return release_approve(release=release, actor=approver, reason="wording only")


def _rejected(route: Route, proposer: Any, approver: Any) -> Release:
    release = _reviewable("marginal")(route, proposer, approver)
    return release_reject(release=release, actor=approver, reason="not convinced")


def _cancelled(route: Route, proposer: Any, approver: Any) -> Release:
    return release_cancel(
        release=_benchmarking(route, proposer, approver), actor=proposer, reason="wrong base"
    )


def _failed(route: Route, proposer: Any, approver: Any) -> Release:
    return release_fail(
        release=_benchmarking(route, proposer, approver), reason="run 1 (lane chat) failed: OOM"
    )


def _rolled_back(route: Route, proposer: Any, approver: Any) -> Release:
    release = _active("pass")(route, proposer, approver)
    return release_rollback(release=release, actor=approver, reason="acceptance fell in production")


def _superseded(route: Route, proposer: Any, approver: Any) -> Release:
    first = _active("pass")(route, proposer, approver)
    _active_cosmetic(Route.objects.get(pk=route.pk), proposer, approver)
    return Release.objects.get(pk=first.pk)


F = "Failed"
I = "Inconclusive"  # noqa: E741
S = "Successful"

CASES: tuple[Case, ...] = (
    Case("proposed", _proposed, "proposed", I, False, False, False),
    Case("benchmarking", _benchmarking, "benchmarking", I, False, False, False),
    Case("awaiting_review_no_benchmark", _awaiting_cosmetic, "awaiting_review", I, False, False, False),
    Case("awaiting_review_pass", _reviewable("pass"), "awaiting_review", I, False, False, False),
    Case("awaiting_review_marginal", _reviewable("marginal"), "awaiting_review", I, False, False, False),
    Case("awaiting_review_fail", _reviewable("fail"), "awaiting_review", F, False, False, False),
    Case("approved_pass", _approved, "approved", S, True, True, False),
    Case("active_pass", _active("pass"), "active", S, True, True, False),
    Case("active_no_benchmark", _active_cosmetic, "active", S, True, True, False),
    Case("active_marginal", _active("marginal"), "active", I, True, False, False),
    Case(
        "active_fail_overridden",
        _active("fail", override=True, justification=JUSTIFICATION),
        "active",
        I,
        True,
        False,
        False,
    ),
    Case("rejected", _rejected, "rejected", F, False, False, True),
    Case("cancelled", _cancelled, "cancelled", F, False, False, True),
    Case("failed", _failed, "failed", F, False, False, True),
    Case("rolled_back", _rolled_back, "rolled_back", F, False, False, True),
    Case("superseded", _superseded, "superseded", F, False, False, True),
)


def issue_gate_token(routes: list[str], username: str = "argo-gate") -> Caller:
    from accounts_app.services import token_issue
    from audit_app.actors import Actor

    user = make_user(username, "viewer")
    issued = token_issue(
        user=user, role="viewer", routes=routes, purpose="rollout_gate", actor=Actor.system("system:tests")
    )
    return Caller("gate", user=user, key=issued.key, token=issued.token)


def flagger_post(hook: str, metadata: dict[str, Any], *, client: APIClient | None = None) -> Any:
    """POST the body Flagger sends (fluxcd/flagger v1.44.0 pkg/controller/webhook.go
    `CallWebhook`: name, namespace, phase, checksum, metadata)."""
    body = {
        "name": "summaries",
        "namespace": "llm",
        "phase": "Progressing",
        "checksum": "5d8c6c9f",
        "metadata": metadata,
    }
    return (client or APIClient()).post(f"/api/v1/flagger/{hook}", body, format="json")
