"""Advice runs measured for real in fast tests: a route whose active version runs no
speculation (activated through a real first release), and the worker played for each of
an advice's benchmark runs: claimed, measured by the real harness (`worker.agent.execute`)
against engine emulators that behave like each candidate (tests/support/engine_emulator:
per-token acceptance, a step that costs more per stream in flight, so that speculation
pays at low load and not at high), and the result uploaded through the real service.
Nothing is written into a model by hand.

Small on purpose (16 tokens, 60 ms to the first): the truth is in the shape, not in the
scale. Each candidate's emulator is started once per test session."""

from __future__ import annotations

import copy
from typing import Any

from django.test import TestCase, override_settings

from advice_app.models import AdviceRun
from benchmarks_app.choices import RunState
from benchmarks_app.models import Run, Worker
from benchmarks_app.services.lifecycle import run_fail, run_result_submit, run_start
from contracts_app.models import ContractVersion, Route
from releases_app.services import release_approve, release_create
from tests.support.benchmarked import NO_BROKER, execute_in_thread, register_worker
from tests.support.factories import example, make_version, variant
from tests.support.launcher import Emulators

ROUTE = "contract-summaries"
LANE = "summarization"
LEVELS = [1, 4]
OUTPUT_TOKENS = 16

# A measurement the advisor can decide on with few requests: medians only (a p50 needs 7
# requests per arm at a look's confidence, a p95 86: benchmarks_app/gate/sample_size.py).
MEASUREMENT: dict[str, Any] = {
    "workloads": {
        LANE: {
            "dataset": f"builtin:{LANE}",
            "concurrency": LEVELS,
            "requests_per_level": 8,
            "max_tokens": OUTPUT_TOKENS,
        }
    },
    "improve": [{"metric": "tpot_p50", "min_ratio": 1.0, "confidence": 0.95}],
    "non_inferiority": [{"metric": "ttft_p50", "max_ratio": 1.5}],
}
# The advisor's settings for these tests: two looks of 8 and 16 requests per cell.
OPTIONS = {"looks": 2, "n_start": 8, "n_boot": 400}

# 60 ms to the first token in every arm, steps of 6 ms or more: long enough that a 10-20 ms
# scheduling hiccup on a busy two-core machine moves no median past the rules' margins
# (tests/support/benchmarked.py chose the same for releases).
_LANE = ("--ttft-ms", "60", "--step-jitter", "0.05", "--output-tokens", str(OUTPUT_TOKENS))
# Per candidate name: the emulator flags of an engine running it. ngram-4 drafts 4 tokens
# (60% accepted each: about 2.3 tokens a step) at a verify cost that grows with the streams
# in flight: about 2.2x the baseline's TPOT at concurrency 1, 1.8x at 4. ngram-2 is ahead
# by less. "slow" accepts almost nothing and pays for verifying: never ahead.
ENGINES: dict[str, list[str]] = {
    "off": [*_LANE, "--step-ms", "6", "--step-per-stream-ms", "0.3", "--draft-tokens", "1",
            "--acceptance", "0"],
    "ngram-4": [*_LANE, "--step-ms", "6.5", "--step-per-stream-ms", "0.6", "--acceptance", "0.6",
                "--speculation", '{"method": "ngram", "num_speculative_tokens": 4}'],
    "ngram-2": [*_LANE, "--step-ms", "6.3", "--step-per-stream-ms", "0.45", "--acceptance", "0.6",
                "--speculation", '{"method": "ngram", "num_speculative_tokens": 2}'],
    "slow": [*_LANE, "--step-ms", "9", "--step-per-stream-ms", "1.2", "--acceptance", "0.05",
             "--speculation", '{"method": "ngram", "num_speculative_tokens": 3}'],
}  # fmt: skip


class _Servers:
    def __init__(self) -> None:
        self.emulators = Emulators()
        self.urls: dict[str, str] = {}

    def url(self, name: str) -> str:
        if name not in self.urls:
            self.urls[name] = self.emulators.start(*ENGINES[name]).base_url
        return self.urls[name]


SERVERS = _Servers()


def active_document() -> dict[str, Any]:
    """The example route on vLLM with speculation off, measured as above."""
    doc = example("contract-summaries-ngram")
    doc["speculation"] = {"method": "none"}
    doc = variant(doc, measurement=copy.deepcopy(MEASUREMENT))
    return doc


def active_route(
    *, proposer: Any, approver: Any, document: dict[str, Any] | None = None, slug: str = ROUTE
) -> Route:
    """The route `slug` with `document` (default: active_document()) active through a first
    release."""
    make_version(slug, document or active_document())
    first = release_create(route=slug, candidate_version=1, actor=proposer, reason="first release")
    release_approve(release=first, actor=approver, reason="the route's baseline")
    return Route.objects.get(slug=slug)


def engine_for(run: Run, arm: str) -> str:
    """Which emulator serves an arm: the baseline, or the candidate the run measures."""
    if arm == "baseline":
        return "off"
    return str(AdviceRun.objects.get(pk=run.advice_id).dispatched[str(run.pk)]["candidate"])


def measure(run: Run) -> dict[str, Any]:
    """The real harness on the run's own specification, each arm's managed engine swapped for
    the emulator that behaves like it (as tests/support/benchmarked.py does for releases)."""
    spec = copy.deepcopy(run.spec)
    for arm in ("baseline", "candidate"):
        spec["arms"][arm]["engine"] = {
            "kind": "openai",
            "base_url": SERVERS.url(engine_for(run, arm)),
            "model": "test-model",
            "server": "vllm",
        }
    return {**execute_in_thread(spec), "run_id": run.pk, "attempt": run.attempt}


def play(run: Run, worker: Worker | None = None) -> None:
    """Claim the run, measure it, upload the result; the advice's step runs on commit."""
    worker = worker or _worker()
    run_start(run_id=run.pk, worker=worker, attempt=run.attempt)
    payload = measure(Run.objects.get(pk=run.pk))
    with override_settings(CELERY_BROKER_URL=NO_BROKER), TestCase.captureOnCommitCallbacks(execute=True):
        run_result_submit(run_id=run.pk, worker=worker, attempt=run.attempt, payload=payload)


def lose(run: Run, worker: Worker | None = None, reason: str = "the GPU fell off the bus") -> None:
    """The worker claims the run and reports it failed."""
    worker = worker or _worker()
    run_start(run_id=run.pk, worker=worker, attempt=run.attempt)
    with override_settings(CELERY_BROKER_URL=NO_BROKER), TestCase.captureOnCommitCallbacks(execute=True):
        run_fail(run_id=run.pk, worker=worker, attempt=run.attempt, kind="error", reason=reason)


def queued(advice: AdviceRun) -> list[Run]:
    return list(Run.objects.filter(advice=advice, state=RunState.QUEUED).order_by("id"))


def play_all(advice: AdviceRun, rounds: int = 20) -> AdviceRun:
    """Play every queued run until the advice stops dispatching (or `rounds` pass)."""
    worker = _worker()
    for _ in range(rounds):
        runs = queued(advice)
        if not runs:
            break
        for run in runs:
            play(run, worker)
    return AdviceRun.objects.get(pk=advice.pk)


def _worker() -> Worker:
    return Worker.objects.filter(name="gpu-box-1").first() or register_worker("gpu-box-1")


def version(route: Route, number: int) -> ContractVersion:
    return ContractVersion.objects.get(route=route, number=number)
