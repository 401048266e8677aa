"""An operator in a real browser, and nothing else, takes a release onto live endpoints:
proposes it naming them, points the canary at it from its page (which lists the two
endpoints and what the release waits for); the benchmark button on a drifted canary comes
back with the reason and the release keeps waiting; once the canary serves the candidate,
the same button starts the benchmark. At 390 px the endpoints table stays
inside the screen."""

from __future__ import annotations

from typing import Any

import pytest

from live_app.models import Endpoint
from live_app.services import endpoint_create
from releases_app.models import Release
from tests.live.conftest import LOOPBACK_AND_PRIVATE, vllm_claim
from tests.support.benchmarked import NO_BROKER
from tests.support.browser import sign_in
from tests.support.factories import make_version, variant

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEV = {"VLLM_SERVER_DEV_MODE": "1"}
SMALL = {"extraction": {"dataset": "builtin:extraction", "concurrency": [1], "requests_per_level": 2,
                        "max_tokens": 8}}  # fmt: skip


def test_an_operator_starts_a_release_on_its_endpoints_from_the_page(
    live_server: Any, page: Any, shots: Any, settings: Any, route_v1: Any, proposer: Any, operator: Any,
    emulator: Any,
) -> None:  # fmt: skip
    settings.ENDPOINT_ALLOWED_NETWORKS = LOOPBACK_AND_PRIVATE
    settings.CELERY_BROKER_URL = NO_BROKER  # the runs are queued (the outbox), not run: no worker here
    prod = emulator(*vllm_claim(), env=DEV)
    endpoint_create(route=route_v1, name="prod-eu", base_url=prod.base_url, engine="vllm", actor=operator)
    doc = variant(route_v1.active_version.document,
                  **{"speculation.num_speculative_tokens": 3, "measurement.workloads": SMALL})  # fmt: skip
    v2 = make_version(route_v1, doc)
    stale = emulator(*vllm_claim(), env=DEV)  # the canary not redeployed yet: still 5 tokens
    endpoint_create(route=route_v1, name="canary", base_url=stale.base_url, engine="vllm", actor=operator)
    base = live_server.url

    # Proposed in the browser, naming the two endpoints.
    sign_in(page, base, operator.username)
    page.goto(f"{base}/releases/")
    page.fill("#id_route_propose", route_v1.slug)
    page.fill("#id_candidate_version", str(v2.number))
    page.fill("#id_baseline_endpoint", "prod-eu")
    page.fill("#id_candidate_endpoint", "canary")
    page.click("form[action='/releases/propose'] button[type=submit]")
    page.wait_for_url("**/releases/*/")
    release = Release.objects.get(candidate_version=v2)
    assert (
        f"Release {release.pk} proposed; it waits for its endpoints (below)."
        in page.locator("body").inner_text()
    )
    assert release.state == "proposed" and release.endpoints == {"baseline": "prod-eu", "candidate": "canary"}
    section = page.locator("section[aria-labelledby=release-endpoints-h]")
    assert "prod-eu" in section.inner_text() and "(expects active now)" in section.inner_text()
    assert f"canary must expect release:{release.pk}" in page.locator("#waiting-for-endpoints").inner_text()
    shots(page, "waiting-for-endpoints")

    # The canary, registered as a live endpoint, is pointed at the release from its page.
    page.click("text=Point canary at this release")
    page.wait_for_load_state()
    assert f"canary now expects release:{release.pk}" in page.locator("body").inner_text()
    assert page.locator("text=Point canary at this release").count() == 0
    shots(page, "canary-pointed")

    page.click("text=Benchmark on these endpoints")
    page.wait_for_load_state()
    body = page.locator("body").inner_text()
    assert "canary drifted: speculation.num_speculative_tokens 5 ≠ 3" in body
    assert Release.objects.get(pk=release.pk).state == "proposed"
    assert "Last refused" in page.locator("#waiting-for-endpoints").inner_text()
    shots(page, "drift-refused")

    redeployed = emulator(*vllm_claim(num_speculative_tokens=3), env=DEV)
    Endpoint.objects.filter(name="canary").update(base_url=redeployed.base_url)
    page.click("text=Benchmark on these endpoints")
    page.wait_for_load_state()
    assert f"Release {release.pk} is benchmarking on prod-eu (baseline) and canary (candidate)" in (
        page.locator("body").inner_text()
    )
    assert Release.objects.get(pk=release.pk).state == "benchmarking"
    assert page.locator("text=Benchmark on these endpoints").count() == 0
    shots(page, "benchmarking")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    overflow = page.evaluate(
        "(() => { const s = document.querySelector('section[aria-labelledby=release-endpoints-h]');"
        " return s.getBoundingClientRect().right - document.documentElement.clientWidth; })()"
    )
    assert overflow <= 1, f"the endpoints section overflows the 390 px screen by {overflow} px"
    clipped = page.evaluate(
        "[...document.querySelectorAll('table.stacked td')]"
        ".filter(td => td.scrollWidth > td.clientWidth + 1).length"
    )
    assert clipped == 0  # each cell a labelled line of its own, nothing cut off
    shots(page, "narrow")
    assert page.js_errors == []
