"""The advice page in a real browser: an advice run measured for real (the real services,
the real harness against emulators per candidate: tests/support/advised.py), its
recommendation in words and its charts drawn, then the operator drafts the version and
proposes it, which opens a normal release whose gate measures again."""

from __future__ import annotations

from typing import Any

import pytest

from advice_app.models import AdviceRun
from releases_app.models import Release
from tests.support.advice import LANE
from tests.support.advised import advice_finished, advised_route
from tests.support.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHARTS = "#main .charts .chart"


def _drawn(page: Any) -> list[dict[str, Any]]:
    return list(
        page.evaluate(
            """(selector) => Array.from(document.querySelectorAll(selector)).map((gd) => ({
                 id: gd.id,
                 names: (gd.data || []).map((t) => t.name),
                 svg: gd.querySelectorAll('svg.main-svg').length,
               }))""",
            CHARTS,
        )
    )


def test_an_operator_reads_the_advice_and_proposes_its_draft(
    live_server: Any, page: Any, shots: Any, proposer: Any, approver: Any, operator: Any
) -> None:
    route = advised_route(proposer=proposer, approver=approver)
    advice = advice_finished(route, operator)
    rec = advice.recommendations[LANE]
    base = live_server.url
    sign_in(page, base, operator.username)

    page.goto(f"{base}/routes/{route.slug}/")
    card = page.locator("#route-advice")
    assert "Latest finished advice" in card.inner_text() and "It still holds" in card.inner_text()
    shots(page, "route-with-advice")
    card.locator("a.button").click()
    page.wait_for_url(f"{base}/routes/{route.slug}/advice/**")
    assert page.locator("#new-advice").count() == 1  # an operator may start one
    page.click(f"a[href='/advice/{advice.pk}/']")
    page.wait_for_url(f"{base}/advice/{advice.pk}/")

    verdict = page.locator(f"section[data-lane='{LANE}'] [data-recommendation]")
    text = verdict.inner_text()
    chosen = rec["chosen"]["name"]
    assert chosen in text and "requests per cell" in text
    lo, hi = rec["value_ci"]
    assert f"[{lo:.2f}, {hi:.2f}]" in text
    assert page.locator("[data-progress]").inner_text().startswith("Finished")
    page.wait_for_function(
        "(sel) => Array.from(document.querySelectorAll(sel)).every((gd) => gd.querySelector('svg.main-svg'))",
        arg=CHARTS,
    )
    charts = {c["id"]: c for c in _drawn(page)}
    assert set(charts) == {"chart-advice-lane0-curves", "chart-advice-lane0-front"}
    assert all(c["svg"] >= 1 for c in charts.values())
    assert f"{chosen} (chosen)" in charts["chart-advice-lane0-curves"]["names"]
    assert "on the front (nothing is faster for less)" in charts["chart-advice-lane0-front"]["names"]
    assert page.js_errors == []
    shots(page, "advice")

    page.click("form[aria-label='Draft the version'] button")
    page.wait_for_url(f"{base}/advice/{advice.pk}/")
    draft = AdviceRun.objects.get(pk=advice.pk).draft_version
    assert draft is not None
    assert page.locator("[data-draft]").inner_text() == f"v{draft.number}"
    diff_href = page.locator("[data-diff]").get_attribute("href")
    assert diff_href == f"/routes/{route.slug}/diff/?from={advice.based_on.number}&to={draft.number}"
    shots(page, "advice-drafted")

    page.fill("form[aria-label='Propose as a release'] textarea", "the advisor's recommendation")
    page.click("form[aria-label='Propose as a release'] button")
    page.wait_for_url(f"{base}/releases/**")
    release = Release.objects.get(candidate_version=draft)
    assert page.url == f"{base}/releases/{release.pk}/"
    # A normal release: the gate benchmarks the draft again, on fresh samples.
    assert release.state == "benchmarking" and release.proposed_by == operator
    assert page.locator(".badge-benchmarking").count() >= 1
    shots(page, "release-of-the-draft")

    page.goto(f"{base}/advice/{advice.pk}/")
    assert page.locator("[data-release]").inner_text() == f"#{release.pk}"
    assert page.locator("form[aria-label='Propose as a release']").count() == 0
    page.goto(f"{base}{diff_href}")
    assert page.locator("table.diff td", has_text="speculation.method").count() == 1
    shots(page, "draft-diff")
