"""Cancelling an open release: any operator of its route may, whoever proposed it (an
open release blocks every other proposal on the route), and the audit says both who
cancelled it and whose it was."""

from __future__ import annotations

from typing import Any

import pytest

from audit_app.models import AuditEvent
from kernel.errors import DomainError
from releases_app.guards import release_actions
from releases_app.models import Release
from releases_app.services import release_cancel, release_create
from tests.support.actors import Caller
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db


def test_an_operator_may_cancel_a_release_someone_else_proposed(awaiting: Release, operator: Any) -> None:
    assert awaiting.proposed_by.username != operator.username
    assert "cancel" in release_actions(release=awaiting, actor=operator)  # the page offers it

    release_cancel(release=awaiting, actor=operator, reason="blocks the hotfix; pat is away")

    assert Release.objects.get(pk=awaiting.pk).state == "cancelled"
    event = AuditEvent.objects.get(action="release.cancelled", object_id=str(awaiting.pk))
    assert event.actor_label.endswith(operator.username)
    assert event.after["proposed_by"] == "pat-proposer" and event.after["by_proposer"] is False
    assert event.reason == "blocks the hotfix; pat is away"
    # The route is free again for the operator's own proposal.
    v3 = cosmetic_change(awaiting.route, "Another rewording.")
    assert release_create(route=awaiting.route, candidate_version=v3.number, actor=operator).is_open


def test_the_proposer_cancelling_is_audited_as_the_proposer(awaiting: Release, proposer: Any) -> None:
    release_cancel(release=awaiting, actor=proposer, reason="withdrawn")
    event = AuditEvent.objects.get(action="release.cancelled", object_id=str(awaiting.pk))
    assert event.after["by_proposer"] is True


def test_a_viewer_still_may_not_cancel(awaiting: Release, viewer: Any) -> None:
    assert "cancel" not in release_actions(release=awaiting, actor=viewer)
    with pytest.raises(DomainError) as refused:
        release_cancel(release=awaiting, actor=viewer, reason="not mine")
    assert refused.value.status == 403
    assert Release.objects.get(pk=awaiting.pk).state == "awaiting_review"


def test_an_operator_token_of_another_route_gets_404(awaiting: Release, outsider: Caller) -> None:
    response = outsider.client().post(
        f"/api/v1/releases/{awaiting.pk}/cancel", {"reason": "not my route"}, format="json"
    )
    assert response.status_code == 404
    assert Release.objects.get(pk=awaiting.pk).state == "awaiting_review"
