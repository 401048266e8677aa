from __future__ import annotations

from typing import Any

import pytest

from audit_app.models import AuditEvent
from contracts_app.models import ContractVersion, Route
from kernel.errors import DomainError
from releases_app.models import Release
from releases_app.services import release_rollback
from tests.support.factories import example, make_version, variant
from tests.support.releases import activate, route_identity_change

pytestmark = pytest.mark.django_db


def test_rollback_to_previous_returns_to_the_baseline(route_v1: Route, proposer: Any, approver: Any) -> None:
    v1 = route_v1.active_version
    release = activate(route_identity_change(route_v1), proposer, approver)
    rolled = release_rollback(release=release, actor=approver, reason="ITL regressed in production")
    route_v1.refresh_from_db()
    assert rolled.state == "rolled_back"
    assert route_v1.active_version == v1
    event = AuditEvent.objects.get(action="release.rolled_back")
    assert event.reason == "ITL regressed in production"
    assert event.after["rollback_to"] == "previous"
    assert (event.before["state"], event.after["route_active_version"]) == ("active", 1)


def test_rollback_to_a_named_version(route_v1: Route, proposer: Any, approver: Any) -> None:
    activate(route_identity_change(route_v1, tokens=4), proposer, approver)  # v2 active
    route_v1.refresh_from_db()
    v3_doc = variant(
        route_v1.active_version.document,
        **{"speculation.num_speculative_tokens": 3, "rollback.to": "version:1"},
    )
    release = activate(make_version(route_v1, v3_doc), proposer, approver)
    release_rollback(release=release, actor=approver, reason="back to the known-good v1")
    route_v1.refresh_from_db()
    assert route_v1.active_version.number == 1  # not v2, the baseline


def test_rollback_to_a_missing_version_is_refused_and_changes_nothing(
    route_v1: Route, proposer: Any, approver: Any
) -> None:
    doc = variant(route_v1.active_version.document, **{"description": "x", "rollback.to": "version:9"})
    release = activate(make_version(route_v1, doc), proposer, approver)
    events = AuditEvent.objects.count()
    with pytest.raises(DomainError) as refused:
        release_rollback(release=release, actor=approver, reason="try")
    assert refused.value.status == 409
    assert "version:9 does not exist" in refused.value.detail
    assert Release.objects.get(pk=release.pk).state == "active"
    assert AuditEvent.objects.count() == events


def test_rollback_to_speculation_off_stores_and_reuses_a_generated_version(
    proposer: Any, approver: Any
) -> None:
    eagle = make_version("support-chat", example("support-chat-eagle3"))  # rollback.to: speculation_off
    release = activate(eagle, proposer, approver)
    release_rollback(release=release, actor=approver, reason="acceptance collapsed")
    route = Route.objects.get(slug="support-chat")
    off = route.active_version
    assert off.number == 2
    assert off.source_format == ContractVersion.Source.GENERATED
    assert off.document["speculation"] == {"method": "none"}
    assert off.document["assets"] == []

    # Re-activate the EAGLE-3 version and roll back again: the same generated version.
    again = activate(eagle, proposer, approver)
    release_rollback(release=again, actor=approver, reason="still collapsing")
    route.refresh_from_db()
    assert route.active_version == off
    assert route.versions.count() == 2


def test_the_first_release_has_no_previous_version(proposer: Any, approver: Any) -> None:
    release = activate(
        make_version("contract-summaries", example("contract-summaries-ngram")), proposer, approver
    )
    with pytest.raises(DomainError) as refused:
        release_rollback(release=release, actor=approver, reason="r")
    assert refused.value.status == 409
    assert "no previous version" in refused.value.detail


def test_only_the_active_release_can_be_rolled_back(route_v1: Route, proposer: Any, approver: Any) -> None:
    old = Release.objects.get(route=route_v1, state="active")
    activate(route_identity_change(route_v1), proposer, approver)
    with pytest.raises(DomainError) as refused:
        release_rollback(release=old, actor=approver, reason="r")
    assert refused.value.status == 409
    assert "superseded" in refused.value.detail


def test_an_operator_cannot_roll_back(route_v1: Route, operator: Any) -> None:
    release = Release.objects.get(route=route_v1, state="active")
    with pytest.raises(DomainError) as refused:
        release_rollback(release=release, actor=operator, reason="r")
    assert refused.value.status == 403
