"""Every page under its Content-Security-Policy in a real browser: no violation reported
(the `securitypolicyviolation` event and the console both watched), and what the pages do
with script still works: Plotly charts are drawn, htmx polls and swaps, the route card
prints, the workers table holds still while someone types in it, the API docs render."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from benchmarks_app.models import Run
from benchmarks_app.services.lifecycle import run_progress, run_start
from releases_app.services import release_approve
from tests.support.benchmarked import active_route, benchmarked_release, propose_candidate, register_worker
from tests.support.browser import CHARTS, chart_traces, sign_in, sign_out

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Runs before any script of each document: records what the policy blocked.
WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__csp.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
});
"""


class Watched:
    """A page whose every document is watched for policy violations."""

    def __init__(self, browser: Any, *, clock: bool = False) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.context.add_init_script(WATCH)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.console: list[str] = []
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        if clock:
            self.page.clock.install()

    def _console(self, message: Any) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(message.text)

    def visit(self, url: str, *, policy: str = "style-src 'self';") -> Any:
        response = self.page.goto(url)
        assert response is not None and response.ok, (url, response and response.status)
        header = response.headers.get("content-security-policy", "")
        assert "script-src 'self';" in header and "object-src 'none'" in header, (url, header)
        assert "base-uri 'none'" in header and "frame-ancestors 'none'" in header, (url, header)
        assert policy in header, (url, header)
        self.page.wait_for_load_state("load")
        return response

    def assert_clean(self, where: str) -> None:
        blocked = self.page.evaluate("window.__csp")
        assert blocked == [] and self.console == [], (where, blocked, self.console)
        assert self.errors == [], (where, self.errors)

    def close(self) -> None:
        self.context.close()


def test_every_page_runs_under_the_policy_without_a_violation(
    live_server: Any, browser: Any, shots: Any, proposer: Any, approver: Any, admin: Any
) -> None:
    release = benchmarked_release(proposer=proposer, approver=approver)
    polling = propose_candidate(
        active=active_route(proposer=proposer, approver=approver, slug="polled-route"), proposer=proposer
    )
    queued = Run.objects.filter(release=polling).order_by("id").first()
    assert queued is not None
    finished = Run.objects.filter(release=release).order_by("id").first()
    base = live_server.url

    w = Watched(browser)
    w.visit(f"{base}/login/")
    w.assert_clean("login")
    sign_in(w.page, base, approver.username)
    pages = [
        "/",
        "/routes/contract-summaries/",
        "/routes/contract-summaries/diff/?from=1&to=2",
        "/routes/contract-summaries/versions/2/",
        "/releases/",
        "/audit/",
        f"/runs/{finished.pk}/",
    ]
    for path in pages:
        w.visit(base + path)
        w.assert_clean(path)

    # Plotly charts on the release page and the fleet heatmap.
    w.visit(f"{base}/releases/{release.pk}/")
    w.page.wait_for_function(
        "(selector) => document.querySelectorAll(selector + ' svg.main-svg').length >= 10", arg=CHARTS
    )
    assert all(chart["svg"] >= 1 for chart in chart_traces(w.page))
    shots(w.page, "release-under-csp")
    w.assert_clean("release page")
    # The fleet maps what runs now: the release, once active.
    release_approve(release=release, actor=approver, reason="gate passed")
    w.visit(f"{base}/fleet/")
    w.page.wait_for_selector("#fleet-heatmap svg.main-svg")
    w.assert_clean("fleet")

    # The route card's Print button, from its script file.
    w.visit(f"{base}/routes/contract-summaries/card/")
    w.page.evaluate("window.print = () => { window.__printed = true; }")
    w.page.click("button[data-print]")
    assert w.page.evaluate("window.__printed") is True
    w.assert_clean("route card")

    # htmx polls the benchmark's progress and swaps it in.
    w.visit(f"{base}/releases/{polling.pk}/")
    worker = register_worker()
    run_start(run_id=queued.pk, worker=worker, attempt=1)
    run_progress(run_id=queued.pk, worker=worker, attempt=1, done=7, total=queued.progress_total)
    w.page.wait_for_selector(f"progress[aria-label='run {queued.pk} progress'][value='7']", timeout=15_000)
    w.assert_clean("release progress polling")
    w.visit(f"{base}/runs/{queued.pk}/")
    run_progress(run_id=queued.pk, worker=worker, attempt=1, done=9, total=queued.progress_total)
    w.page.wait_for_function("() => document.querySelector('#run-status').innerText.includes('9')")
    w.assert_clean("run page polling")

    missing = w.page.goto(f"{base}/routes/no-such-route/")
    assert missing is not None and missing.status == 404
    assert "script-src 'self'" in missing.headers.get("content-security-policy", "")
    w.assert_clean("404")
    sign_out(w.page)
    w.close()

    # The admin, the browsable API and the API docs, as an admin.
    a = Watched(browser)
    sign_in(a.page, base, admin.username)
    for path in ("/admin/", "/admin/contracts_app/route/", "/admin/releases_app/release/"):
        a.visit(base + path)
        a.assert_clean(path)
    loose = "style-src 'self' 'unsafe-inline';"
    a.visit(f"{base}/api/v1/routes/", policy=loose)
    a.page.wait_for_selector(".response-info")
    a.assert_clean("browsable API")
    a.visit(f"{base}/api/v1/docs/", policy=loose)
    a.page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    assert a.page.locator(".swagger-ui .opblock").count() > 20
    shots(a.page, "api-docs-under-csp")
    a.assert_clean("API docs")
    a.close()


def test_the_workers_table_refreshes_but_not_while_someone_types_in_it(
    live_server: Any, browser: Any, admin: Any
) -> None:
    """What the trigger filter did before, from workers.js now; timers on a fake clock."""
    register_worker("gpu-box-1")
    base = live_server.url
    w = Watched(browser, clock=True)
    sign_in(w.page, base, admin.username)
    polls: list[str] = []
    w.page.on("request", lambda r: polls.append(r.url) if r.headers.get("hx-request") else None)
    w.visit(f"{base}/workers/")
    w.page.clock.run_for(10_500)
    w.page.wait_for_timeout(500)
    assert len(polls) == 1, polls
    w.page.focus("input[name=reason]")
    w.page.fill("input[name=reason]", "retiring the box")
    w.page.clock.run_for(10_500)
    w.page.wait_for_timeout(500)
    assert len(polls) == 1, polls  # held still: the text is still there
    assert w.page.input_value("input[name=reason]") == "retiring the box"
    w.page.evaluate("document.activeElement.blur()")  # focus leaves the table
    w.page.clock.run_for(10_500)
    w.page.wait_for_timeout(500)
    assert len(polls) == 2, polls
    w.assert_clean("workers page")
    w.close()


@override_settings(CSP_REPORT_ONLY=False)
def test_an_inline_script_is_blocked(live_server: Any, browser: Any, viewer: Any) -> None:
    """The watch itself works: a script injected into a page is refused and reported."""
    w = Watched(browser)
    sign_in(w.page, live_server.url, viewer.username)
    w.visit(f"{live_server.url}/releases/")
    w.page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1';"
        " document.body.appendChild(s); }"
    )
    w.page.wait_for_timeout(200)
    assert w.page.evaluate("window.__ran") is None
    assert any("script-src" in v for v in w.page.evaluate("window.__csp"))
    w.close()
