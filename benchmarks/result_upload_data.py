"""Runs to upload results to, and results of a chosen size, for benchmarks/result_upload.py.

Everything goes through the real services (a route with two versions, a registered worker,
runs it has claimed), so an upload is checked and stored exactly as a worker's is. The
results are built with the harness's own `build_level` and models, with realistic values
(benchmarks/result_size.py's requests: ~150 ms TTFT, 1-4 tokens a chunk, token ids of a
256k vocabulary, ~4 characters of text a token)."""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime
from typing import Any

import yaml

from benchmarks.result_size import _record
from worker.harness.aggregate import build_level
from worker.harness.results.result import BenchResult, EngineInfo, HardwareFacts, Sampling, WorkloadInfo
from worker.harness.results.speculation import SpeculationNotReported
from worker.spec import RunSpec

MIB = 1024 * 1024
TOKENS = 256
# Two levels, both arms: ~4.9 kB a request at 256 tokens (measured: 12.9 MiB for 15 at 5.65 kB),
# so requests_per_level sets the size.
BYTES_PER_REQUEST = 4_860
_HARDWARE = {"hostname": "bench", "cpu_model": "c", "cpu_cores": 2, "memory_gib": 8.0, "gpus": []}
# The project's own example contract (DESIGN §8: it validates as it is), under a fresh slug.
_EXAMPLE = "contract-summaries-ngram.yaml"


class Bench:
    """A route, its two versions and a registered worker: `claimed(requests)` makes runs."""

    def __init__(self) -> None:
        from benchmarks_app.services.workers import bootstrap_token_create, worker_register
        from contracts_app.examples import examples_dir
        from contracts_app.services.versions import contract_version_create

        slug = f"bench-upload-{uuid.uuid4().hex[:8]}"
        made = []
        example = yaml.safe_load((examples_dir() / _EXAMPLE).read_text(encoding="utf-8"))
        for k in (4, 6):
            speculation = {**example["speculation"], "num_speculative_tokens": k}
            doc = {**example, "route": slug, "speculation": speculation}
            made.append(contract_version_create(slug=slug, document=doc, source_format="json", actor=None))
        self.baseline, self.candidate = made[0].version, made[1].version
        bootstrap, _ = bootstrap_token_create(note="bench")
        reg = worker_register(
            bootstrap=bootstrap, name=slug, host=f"{slug}.bench", hardware=_HARDWARE,
            engines={"vllm": "0.24.0"}, capabilities=["openai"], agent_version="0.1.0",
            spec_versions=[1], extra_queues=[],
        )  # fmt: skip
        self.worker, self.token = reg.worker, reg.token

    def claimed(self, requests_per_level: int) -> RunSpec:
        """A run of two levels of `requests_per_level` requests, claimed by the worker."""
        from django.test import override_settings

        from benchmarks_app.services.lifecycle import run_start
        from benchmarks_app.services.runs import run_create

        endpoints = {
            "baseline": {"base_url": "http://10.255.255.1:1", "model": "m"},
            "candidate": {"base_url": "http://10.255.255.1:2", "model": "m"},
        }
        overrides = {"requests_per_level": requests_per_level, "max_tokens": TOKENS, "warmup_requests": 0}
        # No broker: the dispatch waits in the outbox, and this worker claims the run itself.
        with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:9/0"):
            run = run_create(
                route=self.baseline.route, baseline=self.baseline, candidate=self.candidate,
                lane="extraction", actor=None, engine_kind="openai", endpoints=endpoints,
                worker=self.worker, overrides=overrides,
            )  # fmt: skip
        run_start(run_id=run.pk, worker=self.worker, attempt=1)
        run.refresh_from_db()
        return RunSpec.model_validate(run.spec)


def requests_for(mib: float) -> int:
    return max(1, round(mib * MIB / BYTES_PER_REQUEST / 4))


def _arm(spec: RunSpec, rng: random.Random, *, speculative: bool) -> dict[str, Any]:
    levels = []
    for level in spec.load.levels:
        records = [_record(rng, i, spec.max_tokens, speculative) for i in range(spec.load.requests_per_level)]
        levels.append(
            build_level(
                kind="concurrency", value=float(level.concurrency or 1), records=records, duration_s=60.0,
                speculation=SpeculationNotReported(), slo=None, truncated=False,
            )
        )  # fmt: skip
    now = datetime.now(UTC)
    return BenchResult(
        harness_version="bench",
        engine=EngineInfo(kind="openai", model="m"),
        workload=WorkloadInfo(name=spec.workload.lane, prompts=spec.load.requests_per_level),
        sampling=Sampling(),
        max_tokens=spec.max_tokens,
        seed=spec.seed,
        warmup_requests=spec.load.warmup_requests,
        hardware=HardwareFacts(hostname="h", cpu_model="c", cpu_cores=2, memory_gib=8),
        started_at=now,
        finished_at=now,
        levels=levels,
    ).model_dump(mode="json")


def outcome(spec: RunSpec, seed: int = 1) -> dict[str, Any]:
    """A valid upload for `spec` (both arms, every level)."""
    rng = random.Random(seed)
    now = datetime.now(UTC).isoformat()
    return {
        "spec_version": 1,
        "run_id": spec.run_id,
        "attempt": spec.attempt,
        "agent_version": "bench",
        "order": [
            {"level_index": i, "arm": a, "started_at": now, "finished_at": now} for i, a in spec.order()
        ],
        "baseline": _arm(spec, rng, speculative=False),
        "candidate": _arm(spec, rng, speculative=True),
    }


def body_for(template: dict[str, Any], spec: RunSpec) -> bytes:
    """`template`'s results for another run of the same shape (its own run id)."""
    this = {**template, "run_id": spec.run_id, "attempt": spec.attempt}
    return json.dumps(this, separators=(",", ":")).encode()
