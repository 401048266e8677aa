"""Steps the browser tests share."""

from __future__ import annotations

from typing import Any

from tests.factories import PASSWORD

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
