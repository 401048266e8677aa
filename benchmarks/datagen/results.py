"""A run's result, in one place per step so that a change of storage is one edit:

- `arm_shapes(run, rng)`: how the two arms behave (their contracts and the story's intent);
- `result_payload(spec, ...)`: the `RunOutcome` a worker would upload, built with the
  harness's own `build_level` and models (aggregates of each level recomputed from its
  requests exactly as the harness does, so the upload check agrees);
- `result_row(...)`: the `RunResult` row as `run_result_submit` stores it: the payload, its
  digest (`result_digest`, the service's own) and `aggregate_result` of each arm."""

from __future__ import annotations

import hashlib
import json
import zlib
from datetime import datetime, timedelta
from functools import cache
from typing import Any

import numpy as np

from benchmarks.datagen.pgcopy import JsonText
from benchmarks.datagen.samples import GREEDY_MISMATCH, ArmShape, Prompt, level_records
from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.result_digest import result_digest as _digest
from worker.agent import AGENT_VERSION
from worker.harness import HARNESS_VERSION
from worker.harness.acceptance import vllm as vllm_acceptance
from worker.harness.acceptance.prometheus import Metrics
from worker.harness.acceptance.requests import from_requests
from worker.harness.aggregate import build_level
from worker.harness.results.result import (
    BenchResult,
    EngineInfo,
    HardwareFacts,
    MemoryReport,
    MemorySnapshot,
    Sampling,
    WorkloadInfo,
)
from worker.harness.results.speculation import SpeculationNotReported
from worker.harness.runner import assign_prompts
from worker.spec import RunSpec
from worker.workloads import Workload, load_workload

# Milliseconds per decoding step at batch 1, by the size the model name says.
_STEP_MS = {"0.5b": 4.0, "7b": 8.5, "8b": 9.0, "32b": 24.0, "270m": 120.0}
_ACCEPTANCE = {"ngram": 0.55, "draft_model": 0.7, "eagle3": 0.78, "eagle": 0.72, "medusa": 0.6, "mtp": 0.75}


# The engine settings the harness reports for the in-process engine (runner._run_transformers).
_TRANSFORMERS_METHOD = (
    "method",
    "prompt_lookup_num_tokens",
    "max_matching_ngram_size",
    "assistant_model",
    "num_assistant_tokens",
    "assistant_early_exit",
)


@cache
def workload(lane: str) -> Workload:
    return load_workload(lane)


def _server(engine: dict[str, Any]) -> str:
    if engine["kind"] == "transformers":
        return "transformers"
    return str(engine.get("server") or "generic")


def _tokens_per_step(k: int, acceptance: float) -> float:
    return 1 + sum(acceptance**j for j in range(1, k + 1))


def arm_shapes(
    spec: dict[str, Any], methods: dict[str, tuple[str, int]], intent: str, seed: int
) -> dict[str, ArmShape]:
    """`methods`: arm → (speculation method, speculative tokens) of its contract version.
    The candidate's per-token speed relative to the baseline follows the story's intent:
    a release it approves ("good") beats the contract's `required` speed-up at every level
    with a faster first token; "mixed" is around the bar; "poor" is not faster at all."""
    rng = np.random.default_rng(seed)
    model = spec["arms"]["baseline"]["engine"].get("model", "")
    step = next((ms for size, ms in _STEP_MS.items() if size in str(model).lower()), 10.0)
    ttft = step * rng.uniform(3, 8) if step < 100 else rng.uniform(900, 1600)
    base_load = float(rng.uniform(0.01, 0.025))
    speedup = {"good": rng.uniform(1.35, 1.9), "poor": rng.uniform(0.7, 1.1)}.get(
        intent, rng.uniform(0.9, 1.5)
    )
    fade = {"good": 0.0, "poor": rng.uniform(0.01, 0.03)}.get(intent, rng.uniform(0.0, 0.02))
    shapes: dict[str, ArmShape] = {}
    per_token_base = 0.0
    for arm in ("baseline", "candidate"):
        method, k = methods[arm]
        k = k if method != "none" else 0
        accept = float(min(_ACCEPTANCE.get(method, 0.5) * rng.uniform(0.9, 1.1), 0.95)) if k else 0.0
        per_step = _tokens_per_step(k, accept)
        if arm == "baseline":
            step_ms, per_token_base = step * (1 + 0.05 * k), step * (1 + 0.05 * k) / per_step
        else:  # a step as long as it takes to deliver the intended speed-up
            step_ms = per_token_base / speedup * per_step
        shapes[arm] = ArmShape(
            server=_server(spec["arms"][arm]["engine"]),
            k=k,
            acceptance=accept,
            ttft_ms=float(
                ttft
                * {"baseline": 1.0, "good": rng.uniform(0.75, 0.85)}.get(
                    arm if arm == "baseline" else intent, rng.uniform(0.95, 1.15)
                )
            ),
            step_ms=float(step_ms),
            load_factor=base_load + (fade if arm == "candidate" else 0.0),
            error_rate=0.02 if arm == "candidate" and intent == "poor" else 0.003,
        )
    return shapes


def _speculation(shape: ArmShape, records: list[Any], counters: dict[str, int]) -> Any:
    """What the harness reports for the level, from the engine's own sources."""
    if shape.server == "vllm":
        names = vllm_acceptance.NAMES
        pairs = zip(names.totals(), ("drafts", "draft_tokens", "accepted_tokens"), strict=True)
        after = Metrics({name: {(): float(counters[key])} for name, key in pairs} if shape.k else {})
        return vllm_acceptance.from_metrics(Metrics(), after)
    if shape.server == "transformers":
        if not shape.k:
            return SpeculationNotReported(reason="speculation is off (method none)")
        return from_requests(records, "transformers: drafted tokens per step, accepted = step size - 1")
    return SpeculationNotReported(reason=f"a {shape.server} server reports no speculation metrics here")


def _engine_info(engine: dict[str, Any], version: str | None) -> EngineInfo:
    if engine["kind"] == "transformers":
        method = {k: v for k, v in engine.items() if k in _TRANSFORMERS_METHOD}
        return EngineInfo(
            kind="transformers",
            model=engine["model"],
            version="transformers 4.57.1",
            method=method,
            device="cpu",
        )
    return EngineInfo(
        kind=engine["kind"],
        server=engine.get("server", "generic"),
        base_url=engine["base_url"],
        model=engine["model"],
        api=engine.get("api", "completions"),
        version=version if engine["kind"] == "managed" else None,
        command=engine.get("argv") if engine["kind"] == "managed" else None,
    )


def _memory(
    hardware: dict[str, Any], rng: np.random.Generator, lean: bool
) -> tuple[MemoryReport, float | None]:
    gpus = hardware.get("gpus") or []
    if not gpus:
        rss = float(rng.uniform(1.5, 1.9))
        snap = MemorySnapshot(kind="process_rss", used_gib=rss, free_gib=hardware["memory_gib"] - rss)
        return MemoryReport(
            before=snap, after=snap, peak_gib=rss + 1.4, peak_source="process RSS high-water mark"
        ), None
    total = sum(g["memory_total_gib"] for g in gpus)
    used = total * float(rng.uniform(0.6, 0.8) if lean else rng.uniform(0.75, 0.93))
    after = MemorySnapshot(kind="gpu", used_gib=used, free_gib=total - used, total_gib=total)
    before = MemorySnapshot(kind="gpu", used_gib=0.4, free_gib=total - 0.4, total_gib=total)
    peak = used + float(rng.uniform(0.1, 1.5))
    return MemoryReport(
        before=before,
        after=after,
        peak_gib=peak,
        peak_source="sampled every 0.5 s (engine process tree or GPU)",
    ), total - used


def arm_result(
    spec: dict[str, Any],
    arm: str,
    shape: ArmShape,
    slices: list[list[Prompt]],
    hardware: dict[str, Any],
    started: datetime,
    rng: np.random.Generator,
    mismatch: float,
    warnings: list[str],
    engine_version: str | None,
    lean: bool,
) -> tuple[BenchResult, datetime]:
    """One arm's harness result; `lean`: its engine leaves the GPU memory headroom asked for."""
    engine = spec["arms"][arm]["engine"]
    lane = workload(spec["workload"]["lane"])
    levels, clock = [], started + timedelta(seconds=float(rng.uniform(20, 240)))  # engine start-up
    for level, prompts in zip(spec["load"]["levels"], slices, strict=True):
        records, duration, counters = level_records(
            rng,
            shape,
            prompts,
            concurrency=level.get("concurrency"),
            rate=level.get("rate"),
            max_tokens=spec["max_tokens"],
            mismatch=mismatch,
        )
        kind = "concurrency" if level.get("concurrency") is not None else "rate"
        levels.append(
            build_level(
                kind=kind,
                value=level[kind],
                records=records,
                duration_s=duration,
                speculation=_speculation(shape, records, counters),
                slo=None,
                truncated=False,
            )
        )
        clock += timedelta(seconds=duration + 2)
    memory, headroom = _memory(hardware, rng, lean)
    floor = spec.get("memory_headroom_min_gib")
    result = BenchResult(
        harness_version=HARNESS_VERSION,
        engine=_engine_info(engine, engine_version),
        workload=WorkloadInfo(
            name=lane.name, version=lane.version, prompts=len(lane.prompts), repeated_prompts=bool(warnings)
        ),
        sampling=Sampling(**(spec.get("sampling") or (lane.sampling.model_dump() if lane.sampling else {}))),
        max_tokens=spec["max_tokens"],
        seed=spec["seed"],
        warmup_requests=spec["load"]["warmup_requests"],
        hardware=HardwareFacts(**hardware),
        memory=memory,
        headroom_gib=headroom,
        headroom_min_gib=floor,
        headroom_ok=headroom >= floor if headroom is not None and floor is not None else None,
        started_at=started,
        finished_at=clock,
        levels=levels,
        warnings=warnings,
    )
    return result, clock


def result_payload(
    spec: dict[str, Any],
    *,
    shapes: dict[str, ArmShape],
    hardware: dict[str, Any],
    started: datetime,
    intent: str,
    engine_versions: dict[str, str | None],
) -> dict[str, Any]:
    """The RunOutcome for `spec`, as `worker.agent.execute` returns it."""
    rng = np.random.default_rng(zlib.crc32(f"{spec['run_id']}/{spec['attempt']}".encode()))
    lane = workload(spec["workload"]["lane"])
    per_level = [spec["load"]["requests_per_level"]] * len(spec["load"]["levels"])
    _, slices, repeated = assign_prompts(
        lane, seed=spec["seed"], warmup=spec["load"]["warmup_requests"], per_level=per_level
    )
    prompts = [[Prompt(p.id, p.text) for p in s] for s in slices]
    warnings = (
        [
            f"the workload has {len(lane.prompts)} prompts and the plan needs "
            f"{spec['load']['warmup_requests'] + sum(per_level)}: prompts repeat (servers may cache them)"
        ]
        if repeated
        else []
    )
    base, t = arm_result(
        spec,
        "baseline",
        shapes["baseline"],
        prompts,
        hardware,
        started,
        rng,
        0.0,
        warnings,
        engine_versions["baseline"],
        True,
    )
    cand, end = arm_result(
        spec,
        "candidate",
        shapes["candidate"],
        prompts,
        hardware,
        t,
        rng,
        GREEDY_MISMATCH[intent],
        warnings,
        engine_versions["candidate"],
        intent != "poor",
    )
    # The segments in the order the worker runs them (one per block under alternating_blocks),
    # as worker/agent/execute.py writes them.
    pieces = RunSpec.model_validate(spec).pieces()
    blocked = spec["interleave"] == "alternating_blocks"
    step = (end - started) / len(pieces)
    order = []
    for j, (i, arm, block, size) in enumerate(pieces):
        segment: dict[str, Any] = {
            "level_index": i,
            "arm": arm,
            "started_at": (started + j * step).isoformat(),
            "finished_at": (started + (j + 1) * step).isoformat(),
        }
        if blocked:
            segment |= {"block": block, "requests": size}
        order.append(segment)
    return {
        "spec_version": spec["spec_version"],
        "run_id": spec["run_id"],
        "attempt": spec["attempt"],
        "agent_version": AGENT_VERSION,
        "order": order,
        "baseline": base.model_dump(mode="json"),
        "candidate": cand.model_dump(mode="json"),
    }


def result_row(
    *, run_id: int, attempt: int, worker_id: int, payload: dict[str, Any], received_at: datetime, check: bool
) -> dict[str, Any]:
    """The RunResult row, as `run_result_submit` stores it. The canonical JSON that the
    digest hashes is also what is written (serialized once); `check` asks the service's
    own `_digest` to agree."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    if check and digest != _digest(payload):
        raise AssertionError(f"run {run_id}: the result digest differs from the service's")
    return {
        "id": run_id,
        "run_id": run_id,
        "attempt": attempt,
        "worker_id": worker_id,
        "payload": JsonText(canonical),
        "digest": digest,
        "aggregates": {arm: aggregate_result(payload[arm]) for arm in ("baseline", "candidate")},
        "received_at": received_at,
    }
