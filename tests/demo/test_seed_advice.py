"""The demo seeds an advice run (issue 24 point 6): `local-advice` active with speculation
off, and prompt lookup at two token counts to measure on the demo's CPU worker with the
real model (the Transformers engine), dispatched as ordinary runs; seeding again finds it."""

from __future__ import annotations

import pytest
from django.test import override_settings

from advice_app.choices import AdviceState
from benchmarks_app.models import Run
from specpact.demo.seed import ADVICE_LANE, ADVICE_ROUTE, seed_advice, seed_people
from tests.support.benchmarked import NO_BROKER

pytestmark = pytest.mark.django_db


def test_the_demo_seeds_an_advice_run_on_the_real_model_once() -> None:
    seed_people()
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        advice = seed_advice()
    assert advice.route.slug == ADVICE_ROUTE and advice.lanes == [ADVICE_LANE]
    assert advice.state == AdviceState.MEASURING and advice.engine == "transformers"
    assert [(c["method"], c["tokens"]) for c in advice.candidates] == [("ngram", 3), ("ngram", 8)]
    runs = list(Run.objects.filter(advice=advice).order_by("id"))
    assert len(runs) == 2
    for run in runs:
        arms = run.spec["arms"]
        assert {arms[a]["engine"]["kind"] for a in ("baseline", "candidate")} == {"transformers"}
        assert arms["candidate"]["engine"] != arms["baseline"]["engine"]  # prompt lookup vs. off
    # The first round is within the budget, with the second look's room to spare.
    assert 2 * len(runs) * 8 <= advice.budget
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        assert seed_advice().pk == advice.pk
    assert Run.objects.filter(advice=advice).count() == 2
