"""The route page's version history, one page at a time (dashboard_app/selectors/history.py):
newest first, the page named with its range and links to the others, the diff picker still
offering every version, each version reachable on some page, and its "Propose" forms."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from contracts_app.models import ContractVersion, Route
from dashboard_app.selectors.history import HISTORY_PAGE_SIZE, version_history
from tests.support.factories import example, make_version, variant

pytestmark = pytest.mark.django_db

URL = "/routes/contract-summaries/"
DASH = "\N{EN DASH}"


@pytest.fixture
def long_history(route_v1: Route) -> Route:
    """v1 active, then versions up to one more than a page and a half."""
    doc = example("contract-summaries-ngram")
    for n in range(HISTORY_PAGE_SIZE + HISTORY_PAGE_SIZE // 2):
        make_version(route_v1, variant(doc, description=f"Reworded {n}."))
    return route_v1


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _history_links(html: str) -> list[int]:
    table = html[html.index('aria-label="Versions"') :]
    table = table[: table.index("</table>")]
    return [int(n) for n in re.findall(r'href="/routes/contract-summaries/versions/(\d+)/"', table)]


def _options(html: str, select_id: str) -> list[int]:
    select = html[html.index(f'id="{select_id}"') :]
    select = select[: select.index("</select>")]
    return [int(n) for n in re.findall(r'<option value="(\d+)"', select)]


def test_the_first_page_is_the_newest_versions_with_a_link_to_older_ones(
    long_history: Route, viewer: Any
) -> None:
    total = long_history.versions.count()
    html = _client(viewer).get(URL).content.decode()
    assert _history_links(html) == list(range(total, total - HISTORY_PAGE_SIZE, -1))
    oldest = total - HISTORY_PAGE_SIZE + 1
    assert f"page 1 of 2 (v{total}{DASH}v{oldest}: 1{DASH}{HISTORY_PAGE_SIZE} of {total} versions" in html
    assert 'href="?page=2#version-history" rel="next">older' in html
    assert 'rel="prev"' not in html


def test_the_last_page_holds_the_oldest_and_the_active_version(long_history: Route, viewer: Any) -> None:
    total = long_history.versions.count()
    html = _client(viewer).get(URL + "?page=2").content.decode()
    assert _history_links(html) == list(range(total - HISTORY_PAGE_SIZE, 0, -1))
    assert f"page 2 of 2 (v{total - HISTORY_PAGE_SIZE}{DASH}v1:" in html
    assert 'href="?page=1#version-history" rel="prev">← newer' in html
    assert 'rel="next"' not in html
    assert 'v1</a> <span class="badge badge-active">active</span>' in html


def test_every_version_is_on_one_page_and_in_the_diff_picker(long_history: Route, viewer: Any) -> None:
    client = _client(viewer)
    numbers = sorted(long_history.versions.values_list("number", flat=True), reverse=True)
    pages = [client.get(f"{URL}?page={n}").content.decode() for n in (1, 2)]
    assert [n for page in pages for n in _history_links(page)] == numbers
    for page in pages:  # the picker compares any two, whichever page is shown
        assert _options(page, "diff-from") == numbers and _options(page, "diff-to") == numbers
        assert re.search(rf'<option value="{numbers[1]}" selected>', page)


@pytest.mark.parametrize("page", ["0", "-1", "abc", "99", "1e9", "\N{FULLWIDTH DIGIT TWO}"])
def test_a_page_out_of_range_or_not_a_number_shows_a_page(
    long_history: Route, viewer: Any, page: str
) -> None:
    response = _client(viewer).get(URL, {"page": page})
    assert response.status_code == 200
    assert len(_history_links(response.content.decode())) in (HISTORY_PAGE_SIZE, HISTORY_PAGE_SIZE // 2 + 1)


def test_the_propose_forms_are_the_pages_versions(long_history: Route, operator: Any) -> None:
    client = _client(operator)
    total = long_history.versions.count()
    first = client.get(URL).content.decode()
    assert f"Propose v{total}" in first and "Propose v2<" not in first
    assert 'this page of the <a href="#version-history">version history</a> (page 1 of 2)' in first
    last = client.get(URL + "?page=2").content.decode()
    assert "Propose v2<" in last and "Propose v1<" not in last  # v1 is active


def test_a_short_history_has_no_page_links(route_v1: Route, viewer: Any) -> None:
    html = _client(viewer).get(URL).content.decode()
    assert _history_links(html) == [1]
    assert "Version history pages" not in html
    assert "One version so far" in html


def test_the_rows_say_what_the_versions_say(long_history: Route) -> None:
    history = version_history(long_history, None)
    by_number = {v.number: v for v in ContractVersion.objects.filter(route=long_history)}
    assert history.numbers == [str(n) for n in sorted(by_number, reverse=True)]
    for row in history.page.object_list:
        version = by_number[row.number]
        assert (row.pk, row.digest, row.created_at) == (version.pk, version.digest, version.created_at)
        assert row.speculation_method == version.speculation_method
        assert row.username == (version.created_by.username if version.created_by else None)
