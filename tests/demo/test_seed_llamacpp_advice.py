"""Where llama-server is installed, the demo also seeds an advice run over its n-gram types
(issue 24 point 6): `local-advice-llamacpp` served by llama-server with speculation off,
ngram-simple and ngram-mod at 8 tokens, measured by the demo's CPU worker through the
managed-engine path (it launches llama-server from the rendered command). Where it is
absent nothing is seeded and the banner says why, and how to install it."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.test import override_settings

from advice_app.choices import AdviceState
from benchmarks_app.models import Run
from benchmarks_app.worker_fit import waiting_reason
from contracts_app.models import Route
from specpact.demo.seed import ADVICE_LANE, LLAMACPP_ADVICE_ROUTE, seed_llamacpp_advice, seed_people
from specpact.management.commands.demo import Command
from tests.support.benchmarked import NO_BROKER, register_worker
from worker.engines import llamacpp

pytestmark = pytest.mark.django_db


def _arg(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_with_llama_server_installed_it_seeds_its_ngram_types_for_the_cpu_pool_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(llamacpp, "llama_server_binary", lambda: Path("/opt/llama/bin/llama-server"))
    seed_people()
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        advice = seed_llamacpp_advice()
    assert advice is not None
    assert advice.route.slug == LLAMACPP_ADVICE_ROUTE and advice.lanes == [ADVICE_LANE]
    assert advice.state == AdviceState.MEASURING and advice.engine == "llamacpp"
    assert advice.engine_release.startswith("b")
    assert {c["name"] for c in advice.candidates} == {"ngram-simple-8", "ngram-mod-8"}
    runs = list(Run.objects.filter(advice=advice).order_by("id"))
    assert len(runs) == 2
    types = set()
    for run in runs:
        assert run.engine_kind == "managed" and run.queue == "pool.cpu"
        base, cand = (run.spec["arms"][a]["engine"] for a in ("baseline", "candidate"))
        assert base["kind"] == cand["kind"] == "managed" and cand["server"] == "llamacpp"
        # Each worker puts its own copy of the shipped GGUF there (worker/engines/builtin.py).
        assert _arg(base["argv"], "-m") == _arg(cand["argv"], "-m") == "builtin:gemma-3-270m"
        assert "--spec-type" not in base["argv"]  # speculation off
        types.add(_arg(cand["argv"], "--spec-type"))
        drafted = _arg(cand["argv"], "--spec-ngram-simple-size-m") or _arg(
            cand["argv"], "--spec-ngram-mod-n-max"
        )
        assert drafted == "8"
        assert (
            _arg(cand["argv"], "--spec-ngram-simple-size-n") or _arg(cand["argv"], "--spec-ngram-mod-n-match")
        ) == "3"
    assert types == {"ngram-simple", "ngram-mod"}
    # A CPU worker (what `make demo` starts) fits these runs; a GPU worker of another pool does not.
    cpu = register_worker("demo-cpu-test")
    cpu.hardware_class = "cpu"
    cpu.save()
    cpu.refresh_from_db()
    assert "pool.cpu" in cpu.queues
    assert all(waiting_reason(run, [cpu]) == "" for run in runs)
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        again = seed_llamacpp_advice()
    assert again is not None and again.pk == advice.pk
    assert Run.objects.filter(advice=advice).count() == 2


def test_without_llama_server_nothing_is_seeded_and_the_banner_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(llamacpp, "llama_server_binary", lambda: None)
    seed_people()
    assert seed_llamacpp_advice() is None
    assert not Route.objects.filter(slug=LLAMACPP_ADVICE_ROUTE).exists()
    out = StringIO()
    Command(stdout=out)._banner("127.0.0.1:8011", [], 1, None)
    lines = [x for x in out.getvalue().splitlines() if "llama-server" in x]
    assert lines == ["llama-server's n-gram types are not tried: it is not installed (make .venv/.llamacpp)."]
    out = StringIO()
    Command(stdout=out)._banner("127.0.0.1:8011", [], 1, 7)
    assert "http://127.0.0.1:8011/advice/7/" in out.getvalue()
