"""Steps the browser tests share, and their numbered screenshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.factories import PASSWORD

CHARTS = ".evidence .chart"


def sign_in(page: Any, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def sign_out(page: Any) -> None:
    page.click("form.logout button")
    page.wait_for_url("**/login/**")


def chart_traces(page: Any) -> list[dict[str, Any]]:
    """Per drawn chart: its id, Plotly's trace names (`gd.data`) and its SVG count."""
    return list(
        page.evaluate(
            """(selector) => Array.from(document.querySelectorAll(selector)).map((gd) => ({
                 id: gd.id,
                 names: (gd.data || []).map((t) => t.name),
                 svg: gd.querySelectorAll('svg.main-svg').length,
                 legend: Array.from(gd.querySelectorAll('.legendtext')).map((t) => t.textContent),
               }))""",
            CHARTS,
        )
    )


class Shots:
    """Full-page screenshots, numbered in the order the scenario takes them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.n = 0

    def __call__(self, page: Any, name: str) -> Path:
        self.n += 1
        path = self.folder / f"{self.n:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    def element(self, locator: Any, name: str) -> Path:
        """A close-up of one part of a page (the full-page shot shrinks it)."""
        self.n += 1
        path = self.folder / f"{self.n:02d}-{name}.png"
        locator.screenshot(path=str(path))
        return path
