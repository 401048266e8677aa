"""The overview shows a Conformance column in a real browser: each live endpoint with its
state and the probe's coverage words, within a phone's width too; the route card shows the
same. Screenshots under test-artifacts/browser/."""

from __future__ import annotations

from typing import Any

import pytest

from live_app.models import Probe
from live_app.services import endpoint_create, endpoint_probe
from tests.live.conftest import LOOPBACK_AND_PRIVATE, vllm_claim
from tests.support.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_overview_has_a_conformance_column_with_coverage(
    live_server: Any, page: Any, shots: Any, settings: Any, route_v1: Any, operator: Any, viewer: Any,
    emulator: Any,
) -> None:  # fmt: skip
    settings.ENDPOINT_ALLOWED_NETWORKS = LOOPBACK_AND_PRIVATE
    live = emulator(*vllm_claim())
    endpoint = endpoint_create(route=route_v1, name="prod-eu", base_url=live.base_url, engine="vllm",
                               actor=operator)  # fmt: skip
    endpoint_probe(endpoint=endpoint, actor=operator)
    coverage = Probe.objects.get(endpoint=endpoint).coverage
    base = live_server.url
    sign_in(page, base, viewer.username)

    page.goto(f"{base}/")
    headers = [h.strip() for h in page.locator("table.routes thead th").all_text_contents()]
    assert "Conformance" in headers
    column = headers.index("Conformance")
    cell = page.locator("table.routes tbody tr").first.locator("td").nth(column)
    assert cell.locator(".badge").inner_text() == "conforms"
    assert coverage in cell.inner_text().replace("\u200b", "")
    shots(page, "overview-conformance-column")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    wider = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert wider <= 1, f"the overview with its Conformance column is {wider} px wider than a 390 px phone"
    shots(page, "overview-conformance-phone")
    page.set_viewport_size({"width": 1400, "height": 1000})

    page.goto(f"{base}/routes/{route_v1.slug}/card/")
    fact = page.locator('[data-conformance="prod-eu"]')
    assert fact.locator(".badge").inner_text() == "conforms" and coverage in fact.inner_text()
    shots(page, "route-card-conformance")
    assert page.js_errors == []
