"""A route with a finished advice run for the page tests, made through the real services
(tests/support/advice.py: advice_run_create, each benchmark run measured by the real
harness against emulators per candidate, results uploaded, recorded, the next batch
dispatched, the recommendation stored when the advisor stops). Nothing by hand."""

from __future__ import annotations

from typing import Any

from advice_app.choices import AdviceState
from advice_app.models import AdviceRun
from advice_app.services import advice_run_create
from contracts_app.models import Route
from tests.support.advice import LANE, OPTIONS, active_document, active_route, play_all
from tests.support.factories import variant

# Both are about 2x faster than speculation off on their emulators (tests/support/advice.py).
CANDIDATES = [{"method": "ngram", "tokens": 4}, {"method": "ngram", "tokens": 2}]


def advised_route(*, proposer: Any, approver: Any) -> Route:
    """The route active with speculation off, judged by the speedup rule only: the
    emulators' 4 ms to the first token is at the mercy of a busy machine's scheduler, and
    a TTFT rule could drop every candidate (then the answer is speculation off)."""
    document = variant(active_document(), **{"measurement.non_inferiority": []})
    return active_route(proposer=proposer, approver=approver, document=document)


def advice_asked(route: Route, actor: Any) -> AdviceRun:
    return advice_run_create(
        route=route, lanes=[LANE], candidates=CANDIDATES, budget=2000, seed=3, actor=actor, options=OPTIONS
    )


def advice_finished(route: Route, actor: Any) -> AdviceRun:
    advice = play_all(advice_asked(route, actor))
    assert advice.state == AdviceState.FINISHED, advice.last_error
    assert advice.recommendations[LANE]["verdict"] in ("candidate", "cant_tell")
    return advice
