"""Asking for an advice run: what is checked before anything is stored, and the first
batches it dispatches as ordinary benchmark runs."""

from __future__ import annotations

from typing import Any

import pytest

from advice_app.choices import AdviceState
from advice_app.models import AdviceRun
from advice_app.services import advice_run_create
from benchmarks_app.models import OutboxMessage, Run
from contracts_app.models import Route
from kernel.errors import DomainError, Forbidden
from tests.support.advice import LANE, LEVELS, OPTIONS, active_route

pytestmark = pytest.mark.django_db

NGRAM = [
    {"method": "ngram", "tokens": 4, "params": {"prompt_lookup_max": 4}},
    {"method": "ngram", "tokens": 2},
]


@pytest.fixture
def route(proposer: Any, approver: Any) -> Route:
    return active_route(proposer=proposer, approver=approver)


def _create(route: Route, actor: Any, **kw: Any) -> AdviceRun:
    args: dict[str, Any] = {
        "route": route,
        "lanes": [LANE],
        "candidates": NGRAM,
        "budget": 400,
        "seed": 7,
        "actor": actor,
        "options": OPTIONS,
    }
    return advice_run_create(**(args | kw))


def _paths(exc: pytest.ExceptionInfo[DomainError]) -> dict[str, str]:
    return {e.path: e.message for e in exc.value.errors}


def test_it_dispatches_one_run_per_candidate_with_its_speculation(route: Route, operator: Any) -> None:
    advice = _create(route, operator)
    assert advice.state == AdviceState.MEASURING
    assert (advice.engine, advice.engine_release, advice.based_on_id) == (
        "vllm",
        "0.24.0",
        route.active_version_id,
    )
    runs = list(Run.objects.filter(advice=advice).order_by("id"))
    assert [advice.dispatched[str(r.pk)]["candidate"] for r in runs] == ["ngram-2", "ngram-4"]
    for run, tokens in zip(runs, (2, 4), strict=True):
        spec = run.spec
        # Both arms are the active version: speculation off beside the candidate's.
        assert spec["arms"]["baseline"]["speculation_method"] == "none"
        assert spec["arms"]["candidate"]["speculation_method"] == "ngram"
        assert (
            spec["arms"]["baseline"]["contract_version"] == spec["arms"]["candidate"]["contract_version"] == 1
        )
        assert spec["arms"]["baseline"]["digest"] != spec["arms"]["candidate"]["digest"]
        config = spec["arms"]["candidate"]["rendered"]["config"]
        assert (config["method"], config["num_speculative_tokens"]) == ("ngram", tokens)
        assert "--speculative-config" not in spec["arms"]["baseline"]["engine"]["argv"]
        # The advisor's first round: every level, n_start requests each.
        assert [lv["concurrency"] for lv in spec["load"]["levels"]] == LEVELS
        assert spec["load"]["requests_per_level"] == OPTIONS["n_start"]
        assert run.lane == LANE and run.release_id is None
        assert OutboxMessage.objects.filter(run=run).exists()  # dispatched like any run
    assert advice.dispatched[str(runs[1].pk)] == {
        "lane": LANE, "candidate": "ngram-4", "levels": [1.0, 4.0], "n": 8, "round": 1, "retry": False,
        "status": "pending",
    }  # fmt: skip
    stored = advice.candidates[0]
    assert stored["params"] == {"prompt_lookup_max": 4} and stored["schedulable"] is True  # vLLM 0.24.0


@pytest.mark.parametrize(
    ("changes", "path", "words"),
    [
        ({"lanes": ["chat"]}, "lanes[0]", "not in the active version's measurement.workloads"),
        ({"lanes": []}, "lanes", "give one or more lanes"),
        ({"candidates": []}, "candidates", "at least one candidate"),
        ({"candidates": [{"method": "ngram", "tokens": 0}]}, "candidates[0].tokens", "from 1 to"),
        ({"candidates": [{"method": "ngram", "tokens": "4"}]}, "candidates[0].tokens", "whole number"),
        ({"candidates": [{"method": "none", "tokens": 1}]}, "candidates[0].method", "always measured"),
        ({"candidates": [{"method": "warp", "tokens": 1}]}, "candidates[0].method", "one of"),
        ({"candidates": [{"method": "early_exit", "tokens": 4}]}, "candidates[0].method",
         "does not run early_exit"),
        ({"candidates": [{"method": "draft_model", "tokens": 4}]}, "candidates[0].assets", "draft"),
        ({"candidates": [{"method": "ngram", "tokens": 4, "colour": 1}]}, "candidates[0].colour", "unknown"),
        ({"candidates": [{"method": "ngram", "tokens": 4, "params": {"prompt_lookup_min": 5,
                                                                     "prompt_lookup_max": 2}}]},
         "candidates[0].params.prompt_lookup_min", "prompt_lookup"),
        ({"candidates": [{"method": "ngram", "tokens": 4}, {"method": "ngram", "tokens": 4, "name": "b"}]},
         "candidates", "repeats"),
        ({"budget": 0}, "budget", "whole number"),
        ({"budget": True}, "budget", "whole number"),
        ({"budget": 40}, "budget", "budget must be a whole number of requests >= 48"),
        ({"budget": 50}, "budget", "at least 64: the first round measures each of 2 candidates"),
        ({"seed": -1}, "seed", "whole number"),
        ({"options": {"looks": 0}}, "options.looks", "from 1 to 10"),
        ({"options": {"speed": 2}}, "options.speed", "unknown"),
        ({"options": {"pool": "a pool"}}, "options.pool", "a pool name"),
        ({"options": {"pool": 3}}, "options.pool", "a pool name"),
    ],
    ids=[
        "lane-not-measured", "no-lanes", "no-candidates", "zero-tokens", "tokens-text", "method-none",
        "method-unknown", "method-not-in-release", "asset-missing", "unknown-field", "params-invalid",
        "same-config-twice", "budget-zero", "budget-bool", "budget-below-the-advisors-round",
        "budget-below-the-runs-round", "seed-negative",
        "looks-zero", "unknown-option", "pool-with-a-space", "pool-not-text",
    ],
)  # fmt: skip
def test_it_refuses_bad_input_with_the_field_and_stores_nothing(
    route: Route, operator: Any, changes: dict[str, Any], path: str, words: str
) -> None:
    with pytest.raises(DomainError) as exc:
        _create(route, operator, **changes)
    paths = _paths(exc)
    assert path in paths, paths
    assert words in paths[path], paths[path]
    assert exc.value.status == 400
    assert not AdviceRun.objects.exists() and not Run.objects.exists()


def test_an_operator_named_pool_is_where_every_batch_run_goes(route: Route, operator: Any) -> None:
    advice = _create(route, operator, options={**OPTIONS, "pool": "cpu"})
    runs = Run.objects.filter(advice=advice)
    assert runs.count() == 2
    assert {r.queue for r in runs} == {"pool.cpu"}
    assert {m.queue for m in OutboxMessage.objects.filter(run__advice=advice)} == {"pool.cpu"}
    # Without one, the managed (vLLM) runs go where managed runs go.
    other = _create(route, operator, seed=8)
    assert {r.queue for r in Run.objects.filter(advice=other)} == {"pool.gpu"}


def test_a_viewer_may_not_ask(route: Route, viewer: Any) -> None:
    with pytest.raises(Forbidden):
        _create(route, viewer)


def test_a_route_without_an_active_version_has_nothing_to_measure_against(operator: Any) -> None:
    from tests.support.advice import active_document
    from tests.support.factories import make_version

    version = make_version("contract-summaries", active_document())
    with pytest.raises(DomainError) as exc:
        _create(version.route, operator)
    assert exc.value.status == 409 and exc.value.code == "no_active_version"
