"""The gates are polled (Argo every analysis, Flagger every interval): their queries are pinned."""

from __future__ import annotations

import pytest

from contracts_app.models import Route
from releases_app.models import Release
from tests.support.actors import Caller
from tests.support.query_counts import assert_num_queries
from tests.support.rollouts import flagger_post

pytestmark = pytest.mark.django_db


def test_the_analysis_and_the_hooks_run_a_fixed_number_of_queries(route_v1: Route, gate: Caller) -> None:
    release = Release.objects.get(route=route_v1, state="active")
    client = gate.client()
    client.get(f"/api/v1/releases/{release.pk}/analysis")  # last_used_at is written once a minute
    # The token with its user, the user's role, the release with its versions.
    with assert_num_queries(3):
        assert client.get(f"/api/v1/releases/{release.pk}/analysis").status_code == 200
    with assert_num_queries(3):
        assert client.get("/api/v1/routes/contract-summaries/analysis").status_code == 200
    meta = {"route": route_v1.slug, "release": str(release.pk)}
    with assert_num_queries(4):  # + the four-eyes approval
        assert flagger_post("confirm-rollout", meta, client=client).status_code == 200
