"""The rows' three newest-release reads and their endpoints' conformance: PostgreSQL runs
them as text (`dashboard_app.selectors.overview._RELEASES_SQL`,
`dashboard_app.selectors.conformance.ENDPOINTS_JSON_SQL`), any other database (the SQLite
demo) through the ORM (`_annotations`, a prefetch). Both give the same rows, whatever the
releases' states and the endpoints' probes."""

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
        patch.setattr(overview, "_as_text", lambda: False)
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


def test_both_reads_give_the_same_conformance(route_v1: Any, operator: Any) -> None:
    """Not probed, conforming with coverage words, unknown with only a (long) reason, drifted
    with neither; several endpoints on a route, in name order."""
    from django.utils import timezone

    from live_app.models import Endpoint, Probe

    def endpoint(name: str, **probe: Any) -> None:
        e = Endpoint.objects.create(
            route=route_v1, name=name, base_url=f"http://{name}.example:8000", engine="vllm", expects="active"
        )
        if probe:
            p = Probe.objects.create(endpoint=e, probed_at=timezone.now(), **probe)
            Endpoint.objects.filter(pk=e.pk).update(last_probe=p, state=p.state)

    endpoint("zeta")
    endpoint("alpha", state="conforms", coverage="3 of 4 fields verified; <b>x</b>")
    endpoint("mid", state="unknown", reason="not reached: " + "r" * 400)
    endpoint("beta", state="drifted")
    text, portable = _both()
    assert text == portable
    (row,) = text
    assert [c.name for c in row.conformance] == ["alpha", "beta", "mid", "zeta"]
    assert row.conformance[0].words == "3 of 4 fields verified; <b>x</b>"
    assert row.conformance[2].words == ("not reached: " + "r" * 400)[:300]
    assert (row.conformance[1].words, row.conformance[3].words) == ("", "not probed yet")
