"""The release detail builds its row without DRF's field walk (releases_app/api/release_rows.py);
ReleaseDetailSerializer stays its schema, and the row must be what it makes of the same
release, key for key, in order and rendered to the same bytes: a first release (no
baseline) approved, a benchmarking one whose runs wait for a worker (their `since` times),
one proposed on endpoints (what it waits for), and one failed with a verdict and a reason."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.renderers import JSONRenderer

from releases_app.api.release_rows import release_detail_row
from releases_app.api.serializers import ReleaseDetailSerializer
from releases_app.api.views import _for_detail
from releases_app.models import Release
from tests.support.benchmarked import active_route, propose_candidate
from tests.support.workers import register

pytestmark = pytest.mark.django_db


def _same(release: Release) -> dict[str, Any]:
    made = release_detail_row(release)
    expected = ReleaseDetailSerializer(release).data
    assert list(made) == list(expected)
    assert JSONRenderer().render(made) == JSONRenderer().render(expected)
    return made


def test_the_row_is_what_the_serializer_makes_of_the_same_release(proposer: Any, approver: Any) -> None:
    register("cpu-demo")  # no GPU worker: the candidate's runs wait, saying why
    active = active_route(proposer=proposer, approver=approver)
    waiting = propose_candidate(active=active, proposer=proposer)
    read = _for_detail(Release.objects.with_versions())

    first = _same(read.get(pk=active.first_release.pk))
    assert first["baseline_version"] is None and first["decisions"] and first["timeline"]

    benchmarking = _same(read.get(pk=waiting.pk))
    assert benchmarking["baseline_version"] == 1 and benchmarking["waiting_for_worker"]
    assert all(w["since"] is not None for w in benchmarking["waiting_for_worker"])

    # The other shapes, on the same rows as read (not saved: the route holds one open release).
    on_endpoints = read.get(pk=waiting.pk)
    on_endpoints.state, on_endpoints.endpoints = "proposed", {"baseline": "prod-eu", "candidate": "canary"}
    assert "canary must expect" in (_same(on_endpoints)["waiting_for_endpoints"] or "")

    failed = read.get(pk=waiting.pk)
    failed.state, failed.gate_verdict, failed.failure_reason = "failed", "fail", "slower at c=8"
    failed.gate_result = {"verdict": "fail", "levels": [{"c": 8, "speedup": 0.93, "ok": False}], "note": None}
    assert _same(failed)["gate_verdict"] == "fail"


def test_the_api_answers_the_row(proposer: Any, approver: Any, viewer: Any) -> None:
    from rest_framework.test import APIClient

    active = active_route(proposer=proposer, approver=approver)
    client = APIClient()
    client.force_login(viewer)
    response = client.get(f"/api/v1/releases/{active.first_release.pk}/")
    release = _for_detail(Release.objects.with_versions()).get(pk=active.first_release.pk)
    assert response.content == JSONRenderer().render(ReleaseDetailSerializer(release).data)
    assert response["ETag"] == release.etag
