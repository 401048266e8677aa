"""`measurement.history` through releases_app: a release's gate compares its candidate with
the route's earlier approved versions' own benchmarks, and stores each comparison."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.template.defaultfilters import floatformat
from django.test import Client, override_settings

from releases_app.choices import ReleaseState
from releases_app.models import Release
from releases_app.rollout_gate import release_analysis
from releases_app.services import release_approve, release_create
from tests.support.benchmarked import (
    NO_BROKER,
    SERVERS,
    active_route,
    candidate_document,
    finish_runs,
    propose_candidate,
)
from tests.support.factories import make_version, variant

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def _stop_engine_servers() -> Iterator[None]:
    yield
    SERVERS.stop()


def _benchmarked(slug: str, number: int, proposer: Any) -> Release:
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        release = release_create(route=slug, candidate_version=number, actor=proposer, reason="next")
    return finish_runs(Release.objects.get(pk=release.pk))


def test_the_gate_compares_with_the_last_approved_versions_and_keeps_the_evidence(
    proposer: Any, approver: Any, viewer: Any
) -> None:
    # v1: active through a first release without a benchmark. v2, v3: benchmarked and approved.
    active = active_route(proposer=proposer, approver=approver)
    slug = active.route.slug
    second = finish_runs(propose_candidate(active=active, proposer=proposer))
    release_approve(release=second, actor=approver, reason="v2")
    make_version(slug, variant(candidate_document(), **{"measurement.non_inferiority": [
        {"metric": "ttft_p50", "max_ratio": 1.6}]}))  # fmt: skip
    third = _benchmarked(slug, 3, proposer)
    release_approve(release=third, actor=approver, reason="v3")
    history = {"versions": 3, "metric": "tpot_p50", "max_regression": 0.5}
    make_version(slug, variant(candidate_document(), **{"measurement.history": history}))

    fourth = _benchmarked(slug, 4, proposer)

    assert fourth.state == ReleaseState.AWAITING_REVIEW
    checks = [c for c in fourth.gate_result["checks"] if c["rule_id"] == "history"]
    compared = [c for c in checks if c.get("compared")]
    lanes = {c["lane"] for c in compared}
    assert lanes == {"summarization", "extraction"}
    for lane in lanes:
        versions = [
            (c["compared"]["version"], c["compared"]["release_id"]) for c in compared if c["lane"] == lane
        ]
        # v3 and v2 at every level of the lane, newest first; v1 has no benchmark.
        assert set(versions) == {(3, third.pk), (2, second.pk)}
    for c in compared:
        assert c["compared"]["value"] > 0 and c["compared"]["candidate_value"] > 0
        assert c["ci_low"] is not None and c["ci_high"] is not None and c["required"] == 1.5
        assert f"version {c['compared']['version']} (release {c['compared']['release_id']})" in c["reason"]
    shortfall = [c for c in checks if not c.get("compared")]
    assert sorted(c["reason"] for c in shortfall) == [
        f"Lane {lane}: only 2 of 3 earlier approved versions have a result on lane {lane}: "
        "the comparison with history is incomplete."
        for lane in ("extraction", "summarization")
    ]
    rule = next(r for r in fourth.gate_result["rules"] if r["rule_id"] == "history")
    assert rule["verdict"] == "marginal"  # never a pass with fewer versions than asked
    assert fourth.gate_verdict in ("marginal", "fail")

    # The release page shows each comparison: the earlier version, its release, both values.
    client = Client()
    client.force_login(viewer)
    body = client.get(f"/releases/{fourth.pk}/").content.decode()
    assert "data-history-checks" in body
    assert f'href="/releases/{third.pk}/">release #{third.pk}</a>' in body
    assert f'href="/releases/{second.pk}/">release #{second.pk}</a>' in body
    first = next(c for c in compared if c["compared"]["version"] == 3)
    assert f"{floatformat(first['compared']['value'], 2)} ms" in body
    assert "only 2 of 3 earlier approved versions have a result on lane summarization" in body

    # The progressive-delivery analysis carries the same evidence.
    analysis = release_analysis(Release.objects.get(pk=fourth.pk))
    shown = [c["compared"] for c in analysis["checks"] if c.get("compared")]
    assert shown == [c["compared"] for c in compared]
    assert all("compared" not in c for c in analysis["checks"] if c["rule_id"] != "history")
