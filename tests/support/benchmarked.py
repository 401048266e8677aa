"""Builders for dashboard tests: routes with an active version and a release whose
benchmark really ran.

`benchmarked_release()` goes through the real services end to end: the proposer uploads
a baseline and a candidate, an approver activates the baseline, the proposer proposes the
candidate (benchmarking: one run per lane), a registered worker claims each run, the real
harness (`worker.agent.execute`) benchmarks two vLLM-shaped engine emulators
(tests/support/engine_emulator: the candidate streams three tokens per chunk, reports
vLLM's speculation counters and slows down faster under load), the worker uploads the
validated result, and the gate evaluates it (`release_conclude`) and hands its verdict to
releases_app. Nothing is written into a model by hand.

The harness results are cached per run shape for the test session (the benchmark takes
a few seconds); each run still gets its own upload through the API's service.
"""

from __future__ import annotations

import copy
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.test import TestCase, override_settings

from audit_app.actors import Actor
from benchmarks_app.models import Run, Worker
from benchmarks_app.services.lifecycle import run_progress, run_result_submit, run_start
from benchmarks_app.services.workers import bootstrap_token_create, worker_register
from contracts_app.models import ContractVersion, Route
from releases_app.models import Release
from releases_app.services import release_approve, release_conclude, release_create
from tests.support.factories import example, make_version, variant
from tests.support.launcher import Emulators
from worker.agent.execute import execute
from worker.spec import RunSpec

# A closed port: the dispatch kick after commit fails fast and the outbox row stays
# pending; these builders play the worker themselves.
NO_BROKER = "redis://127.0.0.1:9/0"
ROUTE = "contract-summaries"

# Baseline: one token per chunk, batching nearly free. Candidate: three tokens per chunk
# (two of four drafted tokens accepted per step), each step costlier as the batch grows:
# about 2x faster at concurrency 1, ~1.4x at 4, slower than the baseline at 16. The same
# 60 ms to the first token in both: long enough that a 10-20 ms scheduling hiccup on a
# busy two-core machine doesn't take one arm's TTFT p95 past the 1.5x margin on its own.
BASELINE_ENGINE = ["--step-ms", "4", "--load-factor", "0.02", "--pattern", "1", "--ttft-ms", "60"]
CANDIDATE_ENGINE = [
    *("--step-ms", "6", "--load-factor", "0.15", "--pattern", "3", "--ttft-ms", "60"),
    *("--speculation", json.dumps({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4})),
]


def baseline_document() -> dict[str, Any]:
    """The route before speculation: the example contract with speculation off."""
    doc = example("contract-summaries-ngram")
    doc["speculation"] = {"method": "none"}
    doc["compatibility"]["batching"].pop("speculation_off_above_batch_size", None)
    return candidate_measurement(doc)


def candidate_measurement(doc: dict[str, Any]) -> dict[str, Any]:
    """Workloads small enough for a test, on the lanes' real built-in prompt sets; no GPU
    memory rule (the CPU test machine has no GPU to measure)."""
    changes: dict[str, Any] = {
        "measurement.workloads": {
            "summarization": {
                "dataset": "builtin:summarization",
                "concurrency": [1, 4, 16],
                "requests_per_level": 16,
                "max_tokens": 24,
            },
            "extraction": {
                "dataset": "builtin:extraction",
                "concurrency": [1, 4],
                "requests_per_level": 16,
                "max_tokens": 24,
            },
        },
        "measurement.improve": [
            {"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95, "max_concurrency": 4}
        ],
        # A median, not a tail: 16 requests decide a p50 (5 needed) but not a p95 (59:
        # benchmarks_app/gate/sample_size.py), and the tests want a gate that can pass.
        "measurement.non_inferiority": [{"metric": "ttft_p50", "max_ratio": 1.5}],
    }
    out = variant(doc, **changes)
    out["measurement"].pop("memory_headroom_min_gib", None)
    return out


def candidate_document() -> dict[str, Any]:
    """n-gram prompt lookup, as the example contract has it."""
    return candidate_measurement(example("contract-summaries-ngram"))


@dataclass
class ActiveRoute:
    route: Route
    baseline: ContractVersion
    candidate: ContractVersion
    first_release: Release


def active_route(
    *,
    proposer: Any,
    approver: Any,
    slug: str = ROUTE,
    baseline: dict[str, Any] | None = None,
    candidate: dict[str, Any] | None = None,
) -> ActiveRoute:
    """A route whose baseline (v1) is active through a real first release, and a
    candidate (v2) uploaded but not yet proposed (documents default to the ones above)."""
    v1 = make_version(slug, baseline or baseline_document())
    v2 = make_version(slug, candidate or candidate_document())
    first = release_create(route=slug, candidate_version=1, actor=proposer, reason="first release")
    release_approve(release=first, actor=approver, reason="baseline of the route")
    route = Route.objects.get(slug=slug)
    return ActiveRoute(route, v1, v2, Release.objects.get(pk=first.pk))


def propose_candidate(*, active: ActiveRoute, proposer: Any) -> Release:
    """The candidate proposed: the release is benchmarking with one queued run per lane."""
    with override_settings(CELERY_BROKER_URL=NO_BROKER):
        release = release_create(
            route=active.route.slug,
            candidate_version=active.candidate.number,
            actor=proposer,
            reason="try n-gram",
        )
    return Release.objects.get(pk=release.pk)


def register_worker(name: str = "gpu-box-1") -> Worker:
    bootstrap, _ = bootstrap_token_create(actor=Actor.system("system:tests"), note="dashboard tests")
    hardware = {
        "hostname": name,
        "cpu_model": "AMD EPYC 9454",
        "cpu_cores": 48,
        "memory_gib": 512.0,
        "gpus": [
            {"name": "NVIDIA H100 80GB HBM3", "memory_total_gib": 79.6, "driver": "550.54", "cuda": "12.4"}
        ],
    }
    return worker_register(
        bootstrap=bootstrap,
        name=name,
        host=f"{name}.example",
        hardware=hardware,
        engines={"vllm": "0.11.0"},
        capabilities=["openai", "managed"],
        agent_version="0.1.0",
        spec_versions=[1],
        extra_queues=[],
    ).worker


class EngineServers:
    """The two engine emulators (started once per test session, on first use)."""

    def __init__(self) -> None:
        self.emulators = Emulators()
        self.urls: dict[str, str] = {}

    def start(self) -> dict[str, str]:
        if not self.urls:
            for arm, args in (("baseline", BASELINE_ENGINE), ("candidate", CANDIDATE_ENGINE)):
                self.urls[arm] = self.emulators.start(*args).base_url
        return self.urls

    def stop(self) -> None:
        self.emulators.stop()
        self.urls = {}


SERVERS = EngineServers()
_OUTCOMES: dict[str, dict[str, Any]] = {}


def _shape(spec: dict[str, Any]) -> str:
    keep = ("workload", "load", "max_tokens", "sampling", "seed", "interleave")
    return json.dumps({k: spec.get(k) for k in keep}, sort_keys=True)


def harness_outcome(run: Run) -> dict[str, Any]:
    """The real harness on the run's own specification, against the engine servers (the
    arms' managed vLLM engines swapped for the servers' OpenAI-compatible endpoints)."""
    key = _shape(run.spec)
    if key not in _OUTCOMES:
        urls = SERVERS.start()
        spec = copy.deepcopy(run.spec)
        for arm in ("baseline", "candidate"):
            spec["arms"][arm]["engine"] = {
                "kind": "openai",
                "base_url": urls[arm],
                "model": "test-model",
                "server": "vllm",
            }
        _OUTCOMES[key] = execute_in_thread(spec)
    return {**copy.deepcopy(_OUTCOMES[key]), "run_id": run.pk, "attempt": run.attempt}


def execute_in_thread(spec: dict[str, Any]) -> dict[str, Any]:
    """The worker's harness on a run specification. In its own thread: the harness runs its
    own event loop, which can't start in a thread that already has one (a browser test's
    Playwright)."""
    with ThreadPoolExecutor(1) as pool:
        return dict(pool.submit(execute, RunSpec.model_validate(spec), lambda *_: None).result())


def run_as_specified(run: Run, worker: Worker | None = None) -> None:
    """Play the worker for a run on given endpoints, as it is specified (no engine swapped):
    claim it, run the harness, upload the result. The run's end concludes its release here
    too (its on-commit callbacks run, inside a test's transaction)."""
    worker = worker or register_worker()
    run_start(run_id=run.pk, worker=worker, attempt=run.attempt)
    outcome = execute_in_thread(run.spec)
    with TestCase.captureOnCommitCallbacks(execute=True):
        run_result_submit(run_id=run.pk, worker=worker, attempt=run.attempt,
                          payload={**outcome, "run_id": run.pk, "attempt": run.attempt})  # fmt: skip


def finish_runs(release: Release, worker: Worker | None = None) -> Release:
    """Play the worker for every queued run of the release, then let the gate conclude."""
    worker = worker or register_worker()
    for run in Run.objects.filter(release=release).order_by("id"):
        run_start(run_id=run.pk, worker=worker, attempt=run.attempt)
        run = Run.objects.get(pk=run.pk)
        run_progress(run_id=run.pk, worker=worker, attempt=run.attempt, done=1, total=run.progress_total)
        run_result_submit(run_id=run.pk, worker=worker, attempt=run.attempt, payload=harness_outcome(run))
    # After commit the hook concludes it too; in a test transaction it has to be asked.
    release_conclude(release_id=release.pk)
    return Release.objects.get(pk=release.pk)


def benchmarked_release(
    *,
    proposer: Any,
    approver: Any,
    slug: str = ROUTE,
    baseline: dict[str, Any] | None = None,
    candidate: dict[str, Any] | None = None,
) -> Release:
    """A release awaiting review with a gate verdict from a real benchmark."""
    active = active_route(
        proposer=proposer, approver=approver, slug=slug, baseline=baseline, candidate=candidate
    )
    release = propose_candidate(active=active, proposer=proposer)
    return finish_runs(release)
