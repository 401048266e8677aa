"""Routes in known states for release tests, built through the real services
(tests/support/releases.py)."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import Route
from releases_app.models import Release
from releases_app.services import release_create
from tests.support.factories import example, make_version
from tests.support.releases import ROUTE, activate, cosmetic_change, route_identity_change


@pytest.fixture
def route_v1(proposer: Any, approver: Any) -> Route:
    """`contract-summaries` with version 1 active through release 1."""
    v1 = make_version(ROUTE, example("contract-summaries-ngram"))
    activate(v1, proposer, approver)
    return Route.objects.get(slug=ROUTE)


@pytest.fixture
def awaiting(route_v1: Route, proposer: Any) -> Release:
    """A release of a cosmetic change, awaiting review (no benchmark needed)."""
    v2 = cosmetic_change(route_v1)
    return release_create(route=route_v1, candidate_version=v2.number, actor=proposer)


@pytest.fixture
def failed_gate(route_v1: Route, proposer: Any) -> Release:
    """A route-identity change whose gate failed: reviewable, but only with an override."""
    from releases_app.services import release_gate_complete

    v2 = route_identity_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer)
    return release_gate_complete(release=release, verdict="fail", gate_result={"verdict": "fail"})
