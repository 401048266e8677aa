"""The rows' three newest-release reads: PostgreSQL runs them as text
(`dashboard_app.selectors.overview._RELEASES_SQL`), any other database (the SQLite demo)
through the ORM (`_annotations`). Both give the same rows, whatever the releases' states."""

from __future__ import annotations

from typing import Any

import pytest

from contracts_app.models import Route
from dashboard_app.selectors import overview
from dashboard_app.selectors.overview import route_rows
from releases_app.models import Release
from releases_app.services import release_approve, release_create, release_rollback
from tests.support.benchmarked import benchmarked_release
from tests.support.factories import example, make_version

pytestmark = pytest.mark.django_db


def _both() -> tuple[list[Any], list[Any]]:
    text = route_rows()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(overview, "_release_annotations", overview._annotations)
        portable = route_rows()
    return text, portable


def test_postgresql_and_the_portable_reads_give_the_same_rows(
    benchmarked: Release, proposer: Any, approver: Any, second_approver: Any
) -> None:
    # contract-summaries: gated, awaiting review (open); ops-agent: active, never gated;
    # contract-summaries-eu: gated and active, then rolled back (history); doc-review: uploaded only.
    make_version("ops-agent", example("agent-draft-model-vllm"))
    release_approve(
        release=release_create(route="ops-agent", candidate_version=1, actor=proposer),
        actor=approver,
        reason="go",
    )
    eu = benchmarked_release(proposer=proposer, approver=approver, slug="contract-summaries-eu")
    release_approve(release=eu, actor=second_approver, reason="gate passed")
    make_version("doc-review", example("doc-review-ngram-tgi"))
    text, portable = _both()
    assert text == portable
    assert [r.route.slug for r in text] == sorted(Route.objects.values_list("slug", flat=True))
    by_slug = {r.route.slug: r for r in text}
    assert by_slug["contract-summaries"].open_release_id == benchmarked.pk
    assert (
        by_slug["contract-summaries-eu"].speedups
        and by_slug["contract-summaries-eu"].current_release_id == eu.pk
    )
    assert by_slug["doc-review"].gated_release_id is None

    release_rollback(release=eu, actor=second_approver, reason="drifted in production")
    text, portable = _both()
    assert text == portable
    eu_row = {r.route.slug: r for r in text}["contract-summaries-eu"]
    assert not eu_row.speedups and eu_row.history_speedups and eu_row.gated_release_state == "rolled_back"
