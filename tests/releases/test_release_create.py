from __future__ import annotations

from typing import Any

import pytest

from audit_app.models import AuditEvent
from contracts_app.models import Route
from kernel.errors import DomainError
from releases_app.models import Release
from releases_app.services import release_cancel, release_create
from tests.support.factories import example, make_version, variant
from tests.support.releases import ROUTE, cosmetic_change, route_identity_change

pytestmark = pytest.mark.django_db


def test_a_routes_first_release_goes_straight_to_review(proposer: Any) -> None:
    v1 = make_version(ROUTE, example("contract-summaries-ngram"))
    release = release_create(route=ROUTE, candidate_version=1, actor=proposer)
    assert release.state == "awaiting_review"
    assert release.baseline_version is None
    assert release.candidate_version == v1
    actions = list(AuditEvent.objects.for_object("release", release.pk).values_list("action", flat=True))
    assert actions == ["release.proposed", "release.benchmark_skipped"]


def test_a_cosmetic_only_change_skips_the_benchmark(route_v1: Route, proposer: Any) -> None:
    v2 = cosmetic_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer)
    assert release.state == "awaiting_review"
    assert [c["impact"] for c in release.diff] == ["cosmetic"]


def test_a_route_identity_change_waits_for_the_benchmark(route_v1: Route, proposer: Any) -> None:
    v2 = route_identity_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer)
    assert release.state == "benchmarking"
    assert {c["path"] for c in release.diff} == {"speculation.num_speculative_tokens"}
    assert release.baseline_version == route_v1.active_version


def test_a_scope_change_also_waits_for_the_benchmark(route_v1: Route, proposer: Any) -> None:
    doc = variant(route_v1.active_version.document, **{"lanes.excluded": ["agent", "chat"]})
    v2 = make_version(route_v1, doc)
    assert release_create(route=route_v1, candidate_version=v2.number, actor=proposer).state == "benchmarking"


def test_it_refuses_a_second_open_release_until_the_first_is_cancelled(
    route_v1: Route, proposer: Any
) -> None:
    first = release_create(
        route=route_v1, candidate_version=route_identity_change(route_v1).number, actor=proposer
    )
    v3 = cosmetic_change(route_v1)
    with pytest.raises(DomainError) as refused:
        release_create(route=route_v1, candidate_version=v3.number, actor=proposer)
    assert refused.value.status == 409
    assert refused.value.code == "release_open"
    assert f"Release {first.pk}" in refused.value.detail

    release_cancel(release=first, actor=proposer, reason="superseded by a smaller change")
    assert (
        release_create(route=route_v1, candidate_version=v3.number, actor=proposer).state == "awaiting_review"
    )


def test_it_refuses_an_unknown_candidate_version(route_v1: Route, proposer: Any) -> None:
    with pytest.raises(DomainError) as refused:
        release_create(route=route_v1, candidate_version=42, actor=proposer)
    assert refused.value.status == 400
    assert refused.value.errors[0].path == "candidate_version"


def test_it_refuses_the_version_that_is_already_active(route_v1: Route, proposer: Any) -> None:
    with pytest.raises(DomainError) as refused:
        release_create(route=route_v1, candidate_version=1, actor=proposer)
    assert refused.value.status == 409


def test_a_viewer_cannot_propose(route_v1: Route, viewer: Any) -> None:
    v2 = cosmetic_change(route_v1)
    with pytest.raises(DomainError) as refused:
        release_create(route=route_v1, candidate_version=v2.number, actor=viewer)
    assert refused.value.status == 403
    assert Release.objects.count() == 1


def test_entering_benchmarking_asks_benchmarks_app_for_one_run_per_lane(
    route_v1: Route, proposer: Any
) -> None:
    v2 = route_identity_change(route_v1)
    release = release_create(route=route_v1, candidate_version=v2.number, actor=proposer)
    lanes = set(v2.document["measurement"]["workloads"])
    assert {run.lane for run in release.runs.all()} == lanes
