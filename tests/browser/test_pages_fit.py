"""Every page reachable from the overview, in a real browser at a laptop's 1,366 px and a
phone's 390 px: no console error, no Content-Security-Policy violation, and nothing wider
than the window (a table scrolls in its own box, a long value wraps, the nav folds away).
The crawl follows every same-origin page link from `/`, one page per URL pattern (ids and
digests folded), and names the element that overflows."""

from __future__ import annotations

import re
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.audit.conftest import pem_of
from tests.support.browser import sign_in
from tests.support.world import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"laptop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
MAX_PAGES = 48
# Not pages of the dashboard: the API and its docs (their own tests), the admin, files.
SKIP = re.compile(r"^/(api/|admin/|static/|logout)|\.(json|csv|yaml|txt)$|/(result|export)(\.\w+)?/?$")

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__csp.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
});
"""

# What sticks out past the window's right edge, innermost first, skipping what sits inside
# a box that scrolls or clips (that box holds it; the page doesn't move).
OVERFLOW = """() => {
  const width = window.innerWidth;
  if (document.documentElement.scrollWidth <= width) return null;
  const held = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden" || o === "clip") return true;
    }
    return false;
  };
  const out = [];
  const classes = (el) => typeof el.className === "string" ? el.className.trim().split(/\\s+/) : [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    classes(el).filter(Boolean).map((c) => "." + c).join("");
  // Innermost first: a leaf that sticks out, else the deepest box that does.
  const all = Array.from(document.body.querySelectorAll("*")).reverse();
  for (const el of all) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 1 && r.width > 0 && el.checkVisibility() && !held(el)) {
      out.push(`${name(el)} right=${Math.round(r.right)} "${(el.textContent || "").trim().slice(0, 60)}"`);
    }
    if (out.length >= 4) break;
  }
  if (!out.length) {  // text running out of its box (the boxes themselves fit)
    for (const el of all) {
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible" && !held(el)) {
        out.push(`text in ${name(el)} "${(el.textContent || "").trim().slice(0, 60)}"`);
      }
      if (out.length >= 4) break;
    }
  }
  return {scrollWidth: document.documentElement.scrollWidth, width, elements: out};
}"""


def pattern(url: str) -> str:
    """One page per shape: numbers and digests folded, the query dropped (a filtered list is
    the list)."""
    parts = urlsplit(url)
    path = re.sub(r"sha256:[0-9a-f]{64}", "H", parts.path)
    path = re.sub(r"/\d+(?=/|$)", "/N", path)
    return path


class Tab:
    def __init__(self, browser: Any, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport, timezone_id="Europe/Berlin")
        self.context.add_init_script(WATCH)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def visit(self, url: str) -> list[str]:
        """The page's problems: console errors, policy violations, overflow."""
        self.errors.clear()
        response = self.page.goto(url)
        assert response is not None and response.ok, (url, response and response.status)
        self.page.wait_for_load_state("load")
        if self.page.locator("[data-plotly]").count():
            self.page.wait_for_function(
                "() => document.querySelectorAll('[data-plotly]').length <= "
                "document.querySelectorAll('.js-plotly-plot .main-svg').length / 2"
            )
        problems = [f"console: {e}" for e in self.errors]
        problems += [f"csp: {v}" for v in self.page.evaluate("window.__csp")]
        if overflow := self.page.evaluate(OVERFLOW):
            problems.append(f"overflow: {overflow}")
        return problems

    def links(self, base: str) -> list[str]:
        hrefs = self.page.evaluate(
            "() => Array.from(document.querySelectorAll('a[href]:not([download])')).map((a) => a.href)"
        )
        out = []
        for href in hrefs:
            parts = urlsplit(href)
            if href.startswith(base) and not SKIP.search(parts.path):
                out.append(base + parts.path + (f"?{parts.query}" if parts.query else ""))
        return out


def test_every_page_fits_a_laptop_and_a_phone_without_a_console_error(
    live_server: Any, browser: Any, shots: Any, settings: Any, proposer: Any, approver: Any, operator: Any,
    admin: Any,
) -> None:  # fmt: skip
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    settings.WEBHOOK_ALLOW_LOOPBACK = True
    settings.ENDPOINT_ALLOWED_NETWORKS = "127.0.0.0/8,::1/128"
    settings.AUDIT_SIGNING_KEY = pem_of(Ed25519PrivateKey.generate())
    settings.AUDIT_DEV_SIGNING_KEY_FILE = ""
    world = build_world(proposer=proposer, approver=approver, operator=operator, admin=admin)
    base = live_server.url
    tabs = {name: Tab(browser, viewport) for name, viewport in VIEWPORTS.items()}
    for tab in tabs.values():
        sign_in(tab.page, base, admin.username)

    seen: set[str] = set()
    # The overview; the pages a form leads to (the route page's "Compare" picker); the
    # release with a verdict and the one in progress (other releases share their pattern).
    seeds = [
        f"{base}/", f"{base}/routes/support-chat/diff/?from=1&to=2",
        f"{base}/releases/{world.release.pk}/", f"{base}/releases/{world.running.pk}/",
    ]  # fmt: skip
    queue = deque(seeds)
    problems: dict[str, list[str]] = {}
    visited: list[str] = []
    while queue and len(visited) < MAX_PAGES:
        url = queue.popleft()
        if pattern(url) in seen and url not in seeds:
            continue
        seen.add(pattern(url))
        visited.append(url)
        for name, tab in tabs.items():
            found = tab.visit(url)
            if found:
                problems[f"{name} {url[len(base) :]}"] = found
            shots(tab.page, f"{name}-{url[len(base) :].strip('/').replace('/', '_')[:60] or 'overview'}")
        queue.extend(u for u in tabs["laptop"].links(base) if pattern(u) not in seen)

    # What the pages now say, seen in the browser.
    laptop, phone = tabs["laptop"].page, tabs["phone"].page
    laptop.goto(f"{base}/releases/{world.running.pk}/")
    progress = laptop.inner_text("#benchmark-progress")
    assert re.search(r"baseline arm, level 1 of \d \(step 1 of \d+\), \d+ (min \d+ )?s", progress), progress
    shots.element(laptop.locator("#benchmark-progress"), "progress-step")
    laptop.goto(f"{base}/audit/")
    status = laptop.inner_text("[aria-label='Chain status']")
    assert re.search(
        r"Checkpoint #1, signed at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, covers events 1\u2013\d+", status
    )
    first = laptop.locator("table[aria-label='Audit events'] time").first.inner_text()
    assert " UTC (" in first, first  # stays in UTC beside the UTC filters (the browser is in Berlin)
    assert laptop.locator("table[aria-label='Audit events'] a[href^='/workloads/by-id/']").count() == 1
    laptop.goto(f"{base}/webhooks/")
    assert laptop.locator("table[aria-label='Deliveries'] a[href^='/releases/']").count() >= 1
    happened = laptop.locator("table[aria-label='Deliveries'] time").first.inner_text()
    assert re.search(r"\d\d:\d\d:\d\d (AM |PM )?GMT\+1 \(", happened), happened  # the viewer's zone, named
    # At 390 px the nav is one "Menu" that opens in place, without script.
    phone.goto(f"{base}/")
    assert not phone.locator("nav.nav-wide").is_visible() and phone.locator("details.nav-narrow").is_visible()
    assert phone.locator("header.topbar").bounding_box()["height"] < 60
    phone.click("details.nav-narrow summary")
    phone.locator("details.nav-narrow a[href='/releases/']").click()
    phone.wait_for_url(f"{base}/releases/")
    for tab in tabs.values():
        tab.context.close()

    print("visited:", *visited, sep="\n  ")
    shapes = {pattern(u[len(base) :]) for u in visited}
    # The crawl reached every kind of page the world has.
    for expected in ("/", "/routes/contract-summaries/", "/releases/N/", "/runs/N/", "/workloads/",
                     "/audit/", "/webhooks/", "/fleet/", "/workers/",
                     # Authoring (issue 22 point 5): linked from the route page and the nav.
                     "/routes/contract-summaries/versions/new/", "/workload-upload/",
                     "/tokens/"):  # fmt: skip
        assert any(s.startswith(expected) for s in shapes) or expected in shapes, (expected, sorted(shapes))
    assert any(s.startswith("/workloads/") and s != "/workloads/" for s in shapes), sorted(shapes)
    assert any("/diff/" in s for s in shapes), sorted(shapes)
    assert problems == {}, "\n".join(f"{where}: {p}" for where, ps in problems.items() for p in ps)
