"""Debian's real `prometheus` scrapes a real gunicorn of the test database, with an API
token as its `authorization` (the allowlist emptied, so only the token lets it in), while a
release moves and an endpoint drifts; its HTTP API then answers the series it must see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from live_app.models import Endpoint
from live_app.services.probes import endpoint_probe
from releases_app.models import Release
from releases_app.services import release_approve
from tests.live.conftest import vllm_claim
from tests.support.factories import make_token
from tests.support.gunicorn import serve
from tests.support.prometheus import prometheus_scraping

pytestmark = pytest.mark.integration

DEV = {"VLLM_SERVER_DEV_MODE": "1"}


def _value(result: list[dict[str, Any]]) -> float:
    assert len(result) == 1, result
    return float(result[0]["value"][1])


def test_prometheus_sees_a_release_move_and_an_endpoint_drift(
    transactional_db: None, awaiting: Release, approver: Any, operator: Any, viewer: Any, emulator: Any,
    tmp_path: Path,
) -> None:  # fmt: skip
    conforming = emulator(*vllm_claim(), env=DEV)
    fewer_tokens = emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    endpoint = Endpoint.objects.create(
        route=awaiting.route, name="prod-eu", base_url=conforming.base_url, engine="vllm", expects="active"
    )
    assert endpoint_probe(endpoint=endpoint, actor=operator).state == "conforms"
    token = make_token(viewer, "viewer").key
    with (
        serve({"METRICS_ALLOWED_NETWORKS": ""}) as live,
        prometheus_scraping(live.base_url.removeprefix("http://"), token, tmp_path) as prometheus,
    ):
        assert _value(prometheus.wait_for('specpact_releases{state="awaiting_review"} == 1')) == 1
        assert _value(prometheus.wait_for('up{job="specpact"}')) == 1
        assert _value(prometheus.wait_for("specpact_up")) == 1
        seen = prometheus.wait_for('specpact_endpoint_conformance{endpoint="prod-eu"}')
        assert seen[0]["metric"]["state"] == "conforms"

        release_approve(release=awaiting, actor=approver, reason="reviewed the diff")
        # The engine behind the endpoint was redeployed with fewer speculative tokens.
        Endpoint.objects.filter(pk=endpoint.pk).update(base_url=fewer_tokens.base_url)
        endpoint.refresh_from_db()
        assert endpoint_probe(endpoint=endpoint, actor=operator).state == "drifted"

        # Approval activates the candidate at once; the version it replaces is superseded.
        prometheus.wait_for('specpact_releases{state="superseded"} == 1')
        assert _value(prometheus.query('specpact_releases{state="awaiting_review"}')) == 0
        assert _value(prometheus.query('specpact_releases{state="active"}')) == 1
        # Both approvals (the route's first version and this one) are in the histogram.
        assert _value(prometheus.query('specpact_release_decision_seconds_count{decision="approve"}')) == 2
        drifted = prometheus.wait_for('specpact_endpoint_conformance{endpoint="prod-eu",state="drifted"}')
        assert drifted[0]["metric"]["route"] == awaiting.route.slug
        assert _value(prometheus.query('specpact_endpoints{state="drifted"}')) == 1
