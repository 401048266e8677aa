"""The Content-Security-Policy without a browser (tests/browser/test_csp.py has one): every
HTML page carries it, the pages hold nothing it would block (no inline script, handler or
style, in the templates or in what the views render), and Plotly's own stylesheet is the
one its bundle would have injected."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from dashboard_app.charts.plotly_css import VENDOR, maplibre_style_id, plotly_css
from tests.support.benchmarked import active_route, propose_candidate, register_worker

STRICT = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "style-src-attr 'unsafe-hashes' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
ROOT = Path(settings.BASE_DIR)
TEMPLATES = sorted(
    p
    for p in [*ROOT.glob("templates/**/*.html"), *ROOT.glob("*_app/templates/**/*.html")]
    if ".venv" not in p.parts
)


class InlineFinder(HTMLParser):
    """What a strict policy blocks: script elements with code, handler attributes,
    javascript: URLs, style elements, non-empty style attributes, and htmx attributes
    that need eval."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script" and "src" not in named and named.get("type") != "application/json":
            self._script = ""
        if tag == "style":
            self.found.append("<style> element")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{tag} {name}=")
            if name == "style" and (value or "").strip():
                self.found.append(f"{tag} style={value!r}")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"{tag} {name}=javascript:")
            # htmx runs these through eval, which the policy (no 'unsafe-eval') refuses.
            if name.startswith("hx-on") or (name == "hx-trigger" and "[" in (value or "")):
                self.found.append(f"{tag} {name}={value!r} needs eval")
            if name in ("hx-vals", "hx-headers") and (value or "").strip().startswith("js:"):
                self.found.append(f"{tag} {name}=js: needs eval")

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            if self._script.strip():
                self.found.append(f"inline <script>: {self._script.strip()[:60]!r}")
            self._script = None


def _inline(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


@pytest.mark.parametrize("path", TEMPLATES, ids=[str(p.relative_to(ROOT)) for p in TEMPLATES])
def test_no_template_holds_inline_script_or_style(path: Path) -> None:
    # Template tags out of the way, so `{% if %}style="…"{% endif %}` is still seen.
    text = re.sub(r"{% comment %}.*?{% endcomment %}", " ", path.read_text(), flags=re.S)
    text = re.sub(r"{%.*?%}|{#.*?#}", " ", text, flags=re.S)
    assert _inline(text) == []


@pytest.fixture
def pages(db: None, proposer: Any, approver: Any, admin: Any) -> list[str]:
    benchmarking = propose_candidate(
        active=active_route(proposer=proposer, approver=approver), proposer=proposer
    )
    register_worker()
    run = benchmarking.runs.order_by("id").first()
    return [
        "/",
        "/fleet/",
        "/routes/contract-summaries/",
        "/routes/contract-summaries/card/",
        "/routes/contract-summaries/diff/?from=1&to=2",
        "/routes/contract-summaries/versions/1/",
        "/releases/",
        f"/releases/{benchmarking.pk}/",
        f"/runs/{run.pk}/",
        "/workers/",
        "/audit/",
    ]


@pytest.mark.django_db
def test_every_page_carries_the_policy_and_renders_nothing_it_blocks(pages: list[str], admin: Any) -> None:
    client = Client()
    login = client.get("/login/")
    assert login["Content-Security-Policy"] == STRICT and _inline(login.content.decode()) == []
    client.force_login(admin)
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        assert response["Content-Security-Policy"] == STRICT, path
        assert _inline(response.content.decode()) == [], path
    # A partial htmx swaps in is HTML too.
    partial = client.get(pages[-2], HTTP_HX_REQUEST="true")
    assert partial["Content-Security-Policy"] == STRICT and _inline(partial.content.decode()) == []
    missing = client.get("/routes/no-such-route/")
    assert missing.status_code == 404 and missing["Content-Security-Policy"] == STRICT


@pytest.mark.django_db
def test_json_is_left_alone_and_the_apis_own_html_may_use_inline_styles_only(admin: Any) -> None:
    client = Client()
    client.force_login(admin)
    assert "Content-Security-Policy" not in client.get("/api/v1/routes/", HTTP_ACCEPT="application/json")
    docs = client.get("/api/v1/docs/")
    policy = docs["Content-Security-Policy"]
    assert "style-src 'self' 'unsafe-inline';" in policy and "style-src-attr 'unsafe-inline';" in policy
    assert (
        "script-src 'self';" in policy
        and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    )
    # The docs page loads its start-up script as a file, not inline.
    assert b"<script>" not in docs.content and b"?script=" in docs.content
    script = client.get("/api/v1/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
    browsable = client.get("/api/v1/routes/", HTTP_ACCEPT="text/html")
    assert "style-src 'self' 'unsafe-inline'" in browsable["Content-Security-Policy"]


@pytest.mark.django_db
def test_report_only_is_a_setting(viewer: Any) -> None:
    with override_settings(CSP_REPORT_ONLY=True):
        response = Client().get("/login/")
    assert response["Content-Security-Policy-Report-Only"] == STRICT
    assert "Content-Security-Policy" not in response


def test_plotlys_stylesheet_and_ids_are_the_bundles_own() -> None:
    bundle = (VENDOR / "plotly-cartesian.min.js").read_text(encoding="utf-8")
    assert (VENDOR / "plotly.css").read_text(encoding="utf-8") == plotly_css(bundle)
    include = (ROOT / "dashboard_app/templates/dashboard/_plotly.html").read_text()
    assert f'<template id="{maplibre_style_id(bundle)}"></template>' in include
    assert 'id="plotly.js-style-global" class="no-inline-styles"' in include
    assert 'n.matches(".no-inline-styles")' in bundle  # what makes plotly.js skip its <style>
