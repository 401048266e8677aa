"""Conformance on the pages: the overview's Conformance column and the route card (page and
Markdown) show each live endpoint's state with its coverage words; the route page's
endpoints table and checklist Q1 say it after the state."""

from __future__ import annotations

import html
from typing import Any

from django.test import Client

from live_app.models import Probe
from live_app.services import endpoint_create, endpoint_probe
from tests.live.conftest import vllm_claim
from tests.support.launcher import reserved_port


def _client(viewer: Any) -> Client:
    client = Client()
    client.force_login(viewer)
    return client


def _text(response: Any) -> str:
    """The page's text as read: <wbr> break hints and entities gone."""
    return html.unescape(response.content.decode().replace("<wbr>", ""))


def test_overview_and_route_card_show_conformance_with_coverage(
    route_v1: Any, operator: Any, viewer: Any, emulator: Any
) -> None:
    live = emulator(*vllm_claim())
    endpoint = endpoint_create(route=route_v1, name="prod-eu", base_url=live.base_url, engine="vllm",
                               actor=operator)  # fmt: skip
    with reserved_port() as port:
        gone = endpoint_create(route=route_v1, name="canary", base_url=f"http://127.0.0.1:{port}",
                               engine="vllm", actor=operator)  # fmt: skip
        endpoint_probe(endpoint=gone, actor=operator)
    endpoint_probe(endpoint=endpoint, actor=operator)
    coverage = Probe.objects.get(endpoint=endpoint).coverage
    assert coverage.startswith("2 of 5 fields verified; ")
    client = _client(viewer)

    overview = _text(client.get("/"))
    assert '<th scope="col">Conformance</th>' in overview
    cell = overview.split('<td class="conformance">')[1].split("</td>")[0]
    assert "prod-eu" in cell and ">conforms<" in cell and coverage in cell
    assert ">unknown<" in cell and "not reached" in cell

    card = _text(client.get("/routes/contract-summaries/card/"))
    assert "Live conformance" in card and coverage in card
    markdown = client.get("/routes/contract-summaries/card.md").content.decode()
    assert "Live endpoint prod-eu conforms: 2 of 5 fields verified" in markdown

    # The route page's table and checklist Q1 say how far it conforms.
    page = _text(client.get("/routes/contract-summaries/"))
    assert f"prod-eu conforms (probed just now): {coverage}" in page


def test_a_route_without_endpoints_says_so_in_the_column(route_v1: Any, viewer: Any) -> None:
    overview = _text(_client(viewer).get("/"))
    assert "no live endpoints" in overview.split('<td class="conformance">')[1].split("</td>")[0]
