"""Results of a given size for a run, built with the harness's own models (build_level,
BenchResult), so they are exactly what a worker of this version uploads; and the same
result as result schema 1 wrote it, for the readers that must still accept it."""

from __future__ import annotations

import copy
import random
from datetime import UTC, datetime
from typing import Any

from worker.harness.aggregate import build_level
from worker.harness.results.requests import RequestRecord
from worker.harness.results.result import BenchResult, EngineInfo, HardwareFacts, Sampling, WorkloadInfo
from worker.harness.results.speculation import SpeculationNotReported
from worker.spec import RunSpec


def record(rng: random.Random, i: int, tokens: int, per_chunk: int) -> RequestRecord:
    sizes = [min(per_chunk, tokens - k) for k in range(0, tokens, per_chunk)]
    t = 100 + rng.random() * 50
    offsets = [t]
    for n in sizes[1:]:
        t += (15 + rng.random() * 10) * n
        offsets.append(t)
    return RequestRecord(
        prompt_id=f"p{i}",
        send_s=i * 0.01,
        ttft_ms=offsets[0],
        e2e_ms=offsets[-1],
        tpot_ms=(offsets[-1] - offsets[0]) / (tokens - 1) if tokens > 1 else None,
        chunk_offsets_ms=offsets,
        chunk_tokens=sizes,
        chunk_tokens_source="token_ids",
        output_tokens=tokens,
        output_tokens_source="usage",
        output_token_ids=[(i * 7919 + k) % 50_000 for k in range(tokens)],
        output_text=" ".join(f"t{k}" for k in range(tokens)),
        finish_reason="length",
    )


def arm_result(spec: RunSpec, *, tokens: int, per_chunk: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    levels = []
    for level in spec.load.levels:
        records = [record(rng, i, tokens, per_chunk) for i in range(spec.load.requests_per_level)]
        kind, value = ("concurrency", level.concurrency) if level.concurrency else ("rate", level.rate)
        levels.append(
            build_level(
                kind=kind,
                value=float(value or 1),
                records=records,
                duration_s=30.0,
                speculation=SpeculationNotReported(),
                slo=None,
                truncated=False,
            )
        )
    now = datetime.now(UTC)
    result = BenchResult(
        harness_version="tests",
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
    )
    return result.model_dump(mode="json")


def outcome_for(spec: RunSpec, *, tokens: int) -> dict[str, Any]:
    """A valid upload for `spec`: every level of both arms, `tokens` tokens a request."""
    now = datetime.now(UTC).isoformat()
    return {
        "spec_version": 1,
        "run_id": spec.run_id,
        "attempt": spec.attempt,
        "agent_version": "tests",
        "order": [
            {"level_index": i, "arm": a, "started_at": now, "finished_at": now} for i, a in spec.order()
        ],
        "baseline": arm_result(spec, tokens=tokens, per_chunk=1, seed=1),
        "candidate": arm_result(spec, tokens=tokens, per_chunk=3, seed=2),
    }


def as_schema_1(outcome: dict[str, Any]) -> dict[str, Any]:
    """The outcome as result schema 1 stored it: float-millisecond offsets."""
    old = copy.deepcopy(outcome)
    for arm in ("baseline", "candidate"):
        old[arm]["schema_version"] = 1
        for level in old[arm]["levels"]:
            for request in level["requests"]:
                us = request.pop("chunk_offsets_us", None)
                request["chunk_offsets_ms"] = [u / 1000 for u in us or []]
    return old
