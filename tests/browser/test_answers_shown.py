"""Answers that say only what is shown, in a real browser: a route whose first release
went live without a benchmark says so in Q1 (and Q6 is *missing*: nothing to return to),
and a passing release opens its verdict with the rule and number that decided it, not
behind a folded section. Screenshots under test-artifacts/browser/."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import Route
from releases_app.services import release_create, release_gate_complete
from tests.support.browser import sign_in
from tests.support.gates import MEASURED, gate_result
from tests.support.releases import route_identity_change

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_skipped_benchmark_and_a_pass_say_what_decided_them(
    live_server: Any, page: Any, shots: Any, route_v1: Route, proposer: Any, viewer: Any
) -> None:
    base = live_server.url
    sign_in(page, base, viewer.username)

    page.goto(f"{base}/routes/{route_v1.slug}/")
    q1 = page.locator(".checklist > li").nth(0)
    assert q1.locator(".badge").inner_text() == "documented"
    assert "without a benchmark" in q1.inner_text()
    assert "because it was the route's first release, with nothing to benchmark against" in q1.inner_text()
    q6 = page.locator(".checklist > li").nth(5)
    assert q6.locator(".badge").inner_text() == "missing"
    assert q6.inner_text().count("No rollback target") == 1
    shots(page, "route-first-release-unbenchmarked")
    shots.element(page.locator(".checklist"), "checklist-closeup")

    release = release_create(
        route=route_v1, candidate_version=route_identity_change(route_v1).number, actor=proposer
    )
    release_gate_complete(release=release, verdict="pass", gate_result=gate_result("pass"))
    page.goto(f"{base}/releases/{release.pk}/")
    line = page.locator("#gate-verdict [data-decided-by]")
    assert line.is_visible()  # opened, not folded into a <details>
    text = line.inner_text()
    assert text.startswith("Decided by TPOT p50 ≥ 1.05× better")
    assert f"n={MEASURED} per arm, required ≥ 1.05×" in text
    assert page.locator("#gate-verdict .interval-picture svg").is_visible()
    shots(page, "release-pass-decided-by")
    shots.element(page.locator("#gate-verdict"), "verdict-closeup")
    assert page.js_errors == []
