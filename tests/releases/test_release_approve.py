from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from audit_app.chain import verify_chain
from audit_app.models import AuditEvent
from contracts_app.models import Route
from kernel.errors import DomainError
from releases_app.models import Decision, Release
from releases_app.services import release_approve, release_create, release_reject
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db

JUSTIFICATION = "TTFT regression is within the SLO for this lane; speedup needed for launch."


def _unchanged(release: Release, events_before: int) -> None:
    """A refused transition leaves nothing behind: same state, same lock, no new event."""
    fresh = Release.objects.get(pk=release.pk)
    assert (fresh.state, fresh.lock_version) == (release.state, release.lock_version)
    assert AuditEvent.objects.count() == events_before


def test_approval_activates_the_candidate_and_supersedes_the_previous_release(
    route_v1: Route, awaiting: Release, approver: Any
) -> None:
    previous = Release.objects.get(route=route_v1, state="active")
    release = release_approve(release=awaiting, actor=approver, reason="description only")
    route_v1.refresh_from_db()
    assert release.state == "active"
    assert route_v1.active_version == release.candidate_version
    assert Release.objects.get(pk=previous.pk).state == "superseded"
    actions = list(AuditEvent.objects.filter(id__gt=0).values_list("action", flat=True))[-3:]
    assert actions == ["release.approved", "release.superseded", "release.activated"]
    assert verify_chain()["valid"]


def test_it_refuses_self_approval_even_by_an_approver(route_v1: Route, second_approver: Any) -> None:
    mine = release_create(
        route=route_v1, candidate_version=cosmetic_change(route_v1).number, actor=second_approver
    )
    events = AuditEvent.objects.count()
    with pytest.raises(DomainError) as refused:
        release_approve(release=mine, actor=second_approver, reason="I trust myself")
    assert refused.value.status == 403
    assert refused.value.code == "four_eyes"
    _unchanged(mine, events)
    assert not Decision.objects.filter(release=mine).exists()


def test_the_database_refuses_an_approval_by_the_proposer_written_directly(awaiting: Release) -> None:
    with pytest.raises(IntegrityError, match="decision_four_eyes"), transaction.atomic():
        Decision.objects.create(
            release=awaiting,
            kind="approve",
            decided_by=awaiting.proposed_by,
            actor_label="user:sneaky",
            proposed_by=awaiting.proposed_by,
            reason="bypassing the service",
        )


def test_the_database_refuses_a_forged_proposer_on_a_decision(awaiting: Release, approver: Any) -> None:
    """Writing someone else as proposer to dodge the CHECK fails the composite foreign key."""
    with pytest.raises(IntegrityError, match="decision_proposer_is_release_proposer"), transaction.atomic():
        Decision.objects.create(
            release=awaiting,
            kind="approve",
            decided_by=awaiting.proposed_by,
            actor_label="user:sneaky",
            proposed_by=approver,
            reason="bypassing the service",
        )


def test_a_failed_gate_needs_an_override(failed_gate: Release, approver: Any) -> None:
    events = AuditEvent.objects.count()
    with pytest.raises(DomainError) as refused:
        release_approve(release=failed_gate, actor=approver, reason="ship it")
    assert refused.value.status == 409
    assert refused.value.code == "override_required"
    _unchanged(failed_gate, events)


def test_an_override_without_justification_is_refused(failed_gate: Release, approver: Any) -> None:
    events = AuditEvent.objects.count()
    with pytest.raises(DomainError) as refused:
        release_approve(
            release=failed_gate, actor=approver, reason="ship it", override=True, justification="ok"
        )
    assert refused.value.status == 400
    assert refused.value.errors[0].path == "justification"
    _unchanged(failed_gate, events)


def test_the_database_refuses_an_override_without_justification(failed_gate: Release, approver: Any) -> None:
    with pytest.raises(IntegrityError, match="decision_override_justified"), transaction.atomic():
        Decision.objects.create(
            release=failed_gate,
            kind="approve",
            decided_by=approver,
            actor_label="user:x",
            proposed_by=failed_gate.proposed_by,
            reason="r",
            override=True,
            justification="too short",
        )


def test_an_override_with_justification_is_recorded(failed_gate: Release, approver: Any) -> None:
    release = release_approve(
        release=failed_gate, actor=approver, reason="ship it", override=True, justification=JUSTIFICATION
    )
    assert release.state == "active"
    decision = Decision.objects.get(release=release, kind="approve")
    assert decision.override is True
    assert decision.justification == JUSTIFICATION
    overridden = AuditEvent.objects.get(action="release.overridden", object_id=str(release.pk))
    assert overridden.after == {"override": True, "justification": JUSTIFICATION}
    assert overridden.before == {"gate_verdict": "fail"}


def test_an_override_of_a_gate_that_did_not_fail_is_refused(awaiting: Release, approver: Any) -> None:
    with pytest.raises(DomainError) as refused:
        release_approve(
            release=awaiting, actor=approver, reason="r", override=True, justification=JUSTIFICATION
        )
    assert refused.value.errors[0].path == "override"


def test_a_release_still_benchmarking_cannot_be_approved(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    from tests.support.releases import route_identity_change

    v2 = route_identity_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer)
    events = AuditEvent.objects.count()
    with pytest.raises(DomainError) as refused:
        release_approve(release=release, actor=approver, reason="too early")
    assert refused.value.status == 409
    _unchanged(release, events)


def test_a_stale_lock_version_is_refused_with_412(awaiting: Release, approver: Any) -> None:
    events = AuditEvent.objects.count()
    with pytest.raises(DomainError) as refused:
        release_approve(release=awaiting, actor=approver, reason="r", expected_lock=awaiting.lock_version - 1)
    assert refused.value.status == 412
    _unchanged(awaiting, events)


def test_an_operator_cannot_approve(awaiting: Release, operator: Any) -> None:
    with pytest.raises(DomainError) as refused:
        release_approve(release=awaiting, actor=operator, reason="r")
    assert refused.value.status == 403


def test_a_reason_is_required(awaiting: Release, approver: Any) -> None:
    with pytest.raises(DomainError) as refused:
        release_approve(release=awaiting, actor=approver, reason="   ")
    assert refused.value.errors[0].path == "reason"


def test_reject_ends_the_release_and_keeps_the_route(
    route_v1: Route, awaiting: Release, approver: Any
) -> None:
    active = route_v1.active_version
    release = release_reject(release=awaiting, actor=approver, reason="wording is wrong")
    route_v1.refresh_from_db()
    assert release.state == "rejected"
    assert route_v1.active_version == active
    assert Decision.objects.get(release=release).kind == "reject"
    with pytest.raises(DomainError) as refused:
        release_approve(release=release, actor=approver, reason="changed my mind")
    assert refused.value.status == 409


def test_approval_is_refused_when_the_baseline_moved_on(
    route_v1: Route, awaiting: Release, approver: Any, proposer: Any
) -> None:
    """Rolled back while the release waited: approving would activate a diff nobody saw."""
    other = cosmetic_change(route_v1, "another")
    route_v1.active_version = other
    route_v1.save(update_fields=["active_version"])
    with pytest.raises(DomainError) as refused:
        release_approve(release=awaiting, actor=approver, reason="r")
    assert refused.value.code == "baseline_changed"
