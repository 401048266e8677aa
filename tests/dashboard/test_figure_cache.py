"""The release page's figures are built once per state of their inputs and chart code,
then served from the cache (dashboard_app/selectors/figure_cache.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from dashboard_app.selectors import figure_cache
from dashboard_app.selectors.evidence import progress_context
from releases_app.models import Release
from releases_app.services import release_reject
from tests.dashboard.test_evidence import RELEASE_PAGE_QUERIES, figures
from tests.support.query_counts import assert_num_queries

pytestmark = pytest.mark.django_db


def test_a_second_view_serves_the_same_figures_without_reading_the_aggregates(
    benchmarked: Release, signed_in: Client
) -> None:
    url = f"/releases/{benchmarked.pk}/"
    with assert_num_queries(RELEASE_PAGE_QUERIES) as first:
        built = signed_in.get(url).content.decode()
    assert any('"aggregates"' in q["sql"] for q in first.captured_queries)
    with assert_num_queries(RELEASE_PAGE_QUERIES - 1) as second:
        served = signed_in.get(url).content.decode()
    assert not any('"aggregates"' in q["sql"] for q in second.captured_queries)
    assert figures(served) == figures(built) and len(figures(built)) >= 10


def test_a_change_of_the_release_builds_them_again(
    benchmarked: Release, approver: Any, signed_in: Client
) -> None:
    before = figure_cache.figures_key(benchmarked, progress_context(benchmarked)["runs"])
    release_reject(release=benchmarked, actor=approver, reason="not this week")
    benchmarked.refresh_from_db()
    after = figure_cache.figures_key(benchmarked, progress_context(benchmarked)["runs"])
    assert before != after  # the lock version moved with the state
    with assert_num_queries(RELEASE_PAGE_QUERIES) as ctx:
        assert signed_in.get(f"/releases/{benchmarked.pk}/").status_code == 200
    assert any('"aggregates"' in q["sql"] for q in ctx.captured_queries)


def test_the_key_follows_the_chart_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "speedup.py").write_text("WIDTH = 1\n")
    monkeypatch.setattr(figure_cache, "_CHART_SOURCES", (tmp_path,))
    figure_cache.chart_code_version.cache_clear()
    try:
        old = figure_cache.chart_code_version()
        (tmp_path / "speedup.py").write_text("WIDTH = 2\n")
        figure_cache.chart_code_version.cache_clear()
        assert figure_cache.chart_code_version() != old
    finally:
        figure_cache.chart_code_version.cache_clear()
