"""Handed over, not applied: a finished advice's recommendation as a draft contract version
with its diff and the advice as evidence; proposing it opens an ordinary release."""

from __future__ import annotations

from typing import Any

import pytest

from advice_app.models import AdviceRun
from advice_app.services import advice_draft_create, advice_propose, advice_run_create
from contracts_app.models import ContractVersion, Route
from kernel.errors import Conflict
from releases_app.choices import ReleaseState
from tests.support.advice import LANE, OPTIONS, active_route, play_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def route(proposer: Any, approver: Any) -> Route:
    return active_route(proposer=proposer, approver=approver)


def _finished(route: Route, actor: Any, candidates: list[dict[str, Any]]) -> AdviceRun:
    advice = advice_run_create(
        route=route, lanes=[LANE], candidates=candidates, budget=2000, seed=5, actor=actor, options=OPTIONS
    )
    return play_all(advice)


def test_the_draft_is_the_chosen_candidate_with_its_diff_and_evidence(route: Route, operator: Any) -> None:
    advice = _finished(route, operator, [{"method": "ngram", "tokens": 4}, {"method": "ngram", "tokens": 2}])
    chosen = advice.recommendations[LANE]["chosen"]
    draft = advice_draft_create(advice=advice, actor=operator)
    doc = draft.version.document
    assert draft.version.number == 2 and draft.version.source_format == ContractVersion.Source.GENERATED
    assert doc["speculation"]["method"] == "ngram"
    assert doc["speculation"]["num_speculative_tokens"] == chosen["tokens"]
    changes = {c["path"]: c for c in draft.diff_from_active}
    assert changes["speculation.method"]["impact"] == "route-identity"
    assert changes["speculation.num_speculative_tokens"]["new"] == chosen["tokens"]
    assert (
        f"advice run {advice.pk}" in doc["notes"] and advice.recommendations[LANE]["summary"] in doc["notes"]
    )
    assert AdviceRun.objects.get(pk=advice.pk).draft_version_id == draft.version.pk
    # Nothing is applied: the route still runs its active version.
    assert Route.objects.get(pk=route.pk).active_version.number == 1
    # Asked again: the same draft.
    assert advice_draft_create(advice=advice, actor=operator).version.pk == draft.version.pk


def test_proposing_the_draft_opens_a_release_that_benchmarks_again(route: Route, operator: Any) -> None:
    advice = _finished(route, operator, [{"method": "ngram", "tokens": 4}])
    with pytest.raises(Conflict) as exc:
        advice_propose(advice=advice, actor=operator)
    assert exc.value.code == "advice_no_draft"
    draft = advice_draft_create(advice=advice, actor=operator)
    release = advice_propose(advice=advice, actor=operator, reason="as advised")
    assert release.candidate_version_id == draft.version.pk and release.baseline_version.number == 1
    assert release.state == ReleaseState.BENCHMARKING  # the gate measures again, on fresh samples
    assert release.runs.count() == 1
    assert AdviceRun.objects.get(pk=advice.pk).release_id == release.pk
    with pytest.raises(Conflict) as again:
        advice_propose(advice=advice, actor=operator)
    assert again.value.code == "advice_proposed"


def test_speculation_off_on_a_route_already_off_drafts_nothing_and_says_so(
    route: Route, operator: Any
) -> None:
    advice = _finished(route, operator, [{"method": "ngram", "tokens": 3, "name": "slow"}])
    assert advice.recommendations[LANE]["verdict"] == "speculation_off"
    assert advice.recommendations[LANE]["dropped"][0]["candidate"] == "slow"
    with pytest.raises(Conflict) as exc:
        advice_draft_create(advice=advice, actor=operator)
    assert exc.value.code == "advice_nothing_to_draft" and "already runs" in exc.value.detail
    assert not ContractVersion.objects.filter(route=route, number=2).exists()


def test_an_unfinished_or_stale_advice_has_no_draft(route: Route, operator: Any, approver: Any) -> None:
    advice = advice_run_create(
        route=route, lanes=[LANE], candidates=[{"method": "ngram", "tokens": 4}], budget=2000, actor=operator,
        options=OPTIONS,
    )  # fmt: skip
    with pytest.raises(Conflict) as exc:
        advice_draft_create(advice=advice, actor=operator)
    assert exc.value.code == "advice_not_finished"
    advice = play_all(advice)
    # The route moved on since: the advice was measured on another version.
    from tests.support.releases import activate, cosmetic_change

    activate(cosmetic_change(route), operator, approver)
    with pytest.raises(Conflict) as stale:
        advice_draft_create(advice=advice, actor=operator)
    assert stale.value.code == "advice_stale"
