"""The reviewer's path through the dashboard in a real browser: sign in, routes overview,
a route, a diff, a release whose benchmark really ran (harness → result upload → gate),
approval by a second person, rollback. Each page is saved as a screenshot under
test-artifacts/browser/, and the charts must have rendered: Plotly's SVG is on the page
and the traces are named baseline and candidate."""

from __future__ import annotations

from typing import Any

import pytest

from releases_app.models import Release
from tests.support.benchmarked import benchmarked_release
from tests.support.browser import CHARTS, chart_traces, sign_in, sign_out
from tests.support.factories import example, make_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_second_approver_approves_a_benchmarked_release_and_rolls_it_back(
    live_server: Any, page: Any, shots: Any, proposer: Any, approver: Any, second_approver: Any
) -> None:
    release = benchmarked_release(proposer=proposer, approver=approver)
    assert release.state == "awaiting_review" and release.gate_verdict in ("pass", "marginal", "fail")
    for name in ("support-chat-eagle3", "doc-review-ngram-tgi"):  # routes with nothing active yet
        make_version(example(name)["route"], example(name))
    base = live_server.url

    page.goto(f"{base}/")
    page.wait_for_url("**/login/**")
    shots(page, "login")
    sign_in(page, base, proposer.username)

    row = page.locator("table.routes tr", has_text="contract-summaries")
    assert row.locator(f"a[href='/releases/{release.pk}/']").count() >= 1
    assert row.locator(f".badge-{release.gate_verdict}").count() == 1
    assert "×" in row.inner_text()  # the headline speedup
    assert page.locator("table.routes tr", has_text="support-chat").inner_text().count("none active") == 1
    shots(page, "routes-overview")

    page.click("table.routes a[href='/routes/contract-summaries/']")
    page.wait_for_url(f"{base}/routes/contract-summaries/")
    assert page.locator(".checklist > li").count() == 6
    assert "sha256:" in page.locator("#active-contract").inner_text()
    shots(page, "route")

    # The route card: print stylesheet (no navigation) and a PDF a buyer can take away.
    page.goto(f"{base}/routes/contract-summaries/card/")
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('.topbar')).display") == "none"
    assert page.locator(".route-card .checklist > li").count() == 6
    shots(page, "route-card-print")
    pdf = shots.folder / "route-card.pdf"
    page.pdf(path=str(pdf), format="A4")
    assert pdf.read_bytes().startswith(b"%PDF")
    page.emulate_media(media="screen")
    page.goto(f"{base}/routes/contract-summaries/")

    page.select_option("#diff-from", "1")
    page.select_option("#diff-to", "2")
    page.click(".diff-picker button[type=submit]")
    page.wait_for_url("**/diff/?from=1&to=2")
    assert page.locator("table.diff td", has_text="speculation.method").count() == 1
    assert page.locator("table.diff .badge-route-identity").count() >= 1
    shots(page, "diff")

    page.goto(f"{base}/routes/contract-summaries/")
    page.click(f"a[href='/releases/{release.pk}/']:text-is('#{release.pk}')")
    page.wait_for_url(f"{base}/releases/{release.pk}/")
    assert_evidence_rendered(page, release)
    # Four eyes: the proposer is not offered the approval.
    assert page.locator("form[aria-label=Approve]").count() == 0
    shots(page, "release-proposer-view")
    sign_out(page)

    sign_in(page, base, second_approver.username)
    page.goto(f"{base}/releases/{release.pk}/")
    assert_evidence_rendered(page, release)
    shots(page, "release-awaiting-review")
    shots.element(page.locator("#gate-verdict"), "release-verdict-closeup")
    shots.element(page.locator(".charts").first, "release-charts-closeup")
    approve = page.locator("form[aria-label=Approve]")
    approve.locator("textarea[name=reason]").fill(
        "Gate passed on both lanes; crossover is above our peak load."
    )
    if release.gate_verdict == "fail":  # a noisy machine may fail the gate: then it takes an override
        approve.locator("input[name=override]").check()
        approve.locator("textarea[name=justification]").fill(
            "Reviewed the failing checks: noise on the CI box."
        )
    approve.locator("button[type=submit]").click()
    page.wait_for_load_state("load")
    assert page.locator(".card[aria-label=Status] .badge-active").count() == 1
    shots(page, "release-active")
    assert Release.objects.get(pk=release.pk).state == "active"

    rollback = page.locator("form[aria-label='Roll back']")
    rollback.locator("textarea[name=reason]").fill("Summaries drifted in production; back to plain decoding.")
    rollback.locator("button[type=submit]").click()
    page.wait_for_load_state("load")
    assert page.locator(".card[aria-label=Status] .badge-rolled_back").count() == 1
    shots(page, "release-rolled-back")
    assert Release.objects.get(pk=release.pk).state == "rolled_back"

    page.goto(f"{base}/routes/contract-summaries/")
    assert "None: speculation is off" in page.locator(".checklist > li").first.inner_text()
    shots(page, "route-after-rollback")

    # The rolled-back release's speedup is history now, not the route's.
    page.goto(f"{base}/fleet/")
    assert page.locator("#fleet-heatmap").count() == 0
    assert page.locator("ul.history li", has_text="rolled back").count() == 1
    shots(page, "fleet")
    assert page.js_errors == []


def assert_evidence_rendered(page: Any, release: Release) -> None:
    verdict = page.locator("#gate-verdict")
    assert verdict.locator(f".badge-{release.gate_verdict}").count() >= 1
    assert "TPOT p50" in verdict.inner_text()  # the rules' reasons, in words
    expected = page.locator(CHARTS).count()
    assert expected >= 10  # per lane: speedup, TPOT, TTFT, chunks, acceptance by level and position, memory
    page.wait_for_function(
        "([selector, n]) => document.querySelectorAll(selector + ' svg.main-svg').length >= n",
        arg=[CHARTS, expected],
    )
    charts = {c["id"]: c for c in chart_traces(page)}
    assert all(c["svg"] >= 1 for c in charts.values()), charts
    for kind in ("tpot", "ttft", "chunks"):
        for chart in (c for cid, c in charts.items() if cid.endswith(f"-{kind}")):
            assert {"baseline", "candidate"} <= set(chart["names"]), chart
            assert {"baseline", "candidate"} <= set(chart["legend"]), chart
    speedups = [c for cid, c in charts.items() if cid.endswith("-speedup")]
    assert speedups and all("speedup with its interval" in c["names"] for c in speedups)
