"""Routes in known states for release tests, built through the real services."""

from __future__ import annotations

from typing import Any

from contracts_app.models import ContractVersion, Route
from releases_app.models import Release
from releases_app.services import release_approve, release_create
from tests.support.factories import make_version, variant

ROUTE = "contract-summaries"  # rollback.to: previous


def activate(version: ContractVersion, proposer: Any, approver: Any) -> Release:
    """Propose `version` and approve it (gate passed when it benchmarks)."""
    from releases_app.services import release_gate_complete

    release = release_create(route=version.route, candidate_version=version.number, actor=proposer)
    if release.state == "benchmarking":
        release = release_gate_complete(release=release, verdict="pass", gate_result={"verdict": "pass"})
    return release_approve(release=release, actor=approver, reason="looks right")


def route_identity_change(route: Route, tokens: int = 4) -> ContractVersion:
    doc = variant(route.active_version.document, **{"speculation.num_speculative_tokens": tokens})
    return make_version(route, doc)


def cosmetic_change(route: Route, text: str = "Reworded description.") -> ContractVersion:
    return make_version(route, variant(route.active_version.document, description=text))
