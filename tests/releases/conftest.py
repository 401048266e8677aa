"""Routes in known states for release tests, built through the real services."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import ContractVersion, Route
from releases_app.models import Release
from releases_app.services import release_approve, release_create
from tests.factories import example, make_version, variant

ROUTE = "contract-summaries"  # rollback.to: previous


def activate(version: ContractVersion, proposer: Any, approver: Any) -> Release:
    """Propose `version` and approve it (gate passed when it benchmarks)."""
    from releases_app.services import release_gate_complete

    release = release_create(route=version.route, candidate_version=version.number, actor=proposer)
    if release.state == "benchmarking":
        release = release_gate_complete(release=release, verdict="pass", gate_result={"verdict": "pass"})
    return release_approve(release=release, actor=approver, reason="looks right")


@pytest.fixture
def route_v1(proposer: Any, approver: Any) -> Route:
    """`contract-summaries` with version 1 active through release 1."""
    v1 = make_version(ROUTE, example("contract-summaries-ngram"))
    activate(v1, proposer, approver)
    return Route.objects.get(slug=ROUTE)


def route_identity_change(route: Route, tokens: int = 4) -> ContractVersion:
    doc = variant(route.active_version.document, **{"speculation.num_speculative_tokens": tokens})
    return make_version(route, doc)


def cosmetic_change(route: Route, text: str = "Reworded description.") -> ContractVersion:
    return make_version(route, variant(route.active_version.document, description=text))


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
