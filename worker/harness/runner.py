"""``run_benchmark(plan) -> BenchResult``: the one call the dispatching worker makes.

Synchronous (it runs its own event loop for the ``openai``/``managed`` engines), pure in
the sense that everything it needs is in the plan and everything it learns is in the
result; progress is reported through an optional callback, at most twice a second.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from time import perf_counter
from typing import Any

from worker.hardware import MemorySampler, hardware_facts, memory_snapshot
from worker.harness import HARNESS_VERSION
from worker.harness.loadgen import Job, Progress, request_body
from worker.harness.plan import BenchPlan, ManagedEngine, OpenAIEngine, TransformersEngine
from worker.harness.results import (
    BenchResult,
    EngineInfo,
    LevelResult,
    MemoryReport,
    Sampling,
    WorkloadInfo,
)
from worker.workloads import Prompt, Workload, load_workload

ProgressCallback = Callable[[Progress], None]


def assign_prompts(
    workload: Workload, *, seed: int, warmup: int, per_level: list[int]
) -> tuple[list[Prompt], list[list[Prompt]], bool]:
    """A seeded order through the prompts: warm-up first, then each level, no prompt used
    twice until all have been (servers cache prompts). The same plan gives the baseline
    and the candidate the same prompts in the same order."""
    order = list(workload.prompts)
    random.Random(seed).shuffle(order)
    needed = warmup + sum(per_level)
    stream = [order[i % len(order)] for i in range(needed)]
    warm, rest = stream[:warmup], stream[warmup:]
    levels = []
    for n in per_level:
        levels.append(rest[:n])
        rest = rest[n:]
    return warm, levels, needed > len(order)


def _tokenizer_counter(path: str | None) -> Callable[[str], int] | None:
    if path is None:
        return None
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])


class _Reporter:
    """Calls the progress callback from a thread every ``interval_s``: the load generator
    itself only bumps counters, so reporting costs the measured streams nothing."""

    def __init__(
        self, progress: Progress, callback: ProgressCallback | None, interval_s: float = 0.5
    ) -> None:
        self.progress, self.callback, self.interval_s = progress, callback, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bench-progress", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            assert self.callback is not None
            self.callback(self.progress)

    def __enter__(self) -> _Reporter:
        if self.callback is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.callback is not None:
            self._stop.set()
            self._thread.join()
            self.callback(self.progress)


def run_benchmark(plan: BenchPlan, progress: ProgressCallback | None = None) -> BenchResult:
    """Benchmarks one engine configuration over the plan's workload and levels.

    Raises ``WorkloadError`` for an unusable workload and ``EngineStartError`` when a
    managed engine won't start; per-request failures never raise (they are counted).
    """
    started = datetime.now(UTC)
    workload = load_workload(plan.workload)
    sampling = plan.sampling or workload.sampling or Sampling()
    levels = plan.level_values
    warm, level_prompts, repeated = assign_prompts(
        workload,
        seed=plan.seed,
        warmup=plan.warmup_requests,
        per_level=[plan.requests_per_level] * len(levels),
    )
    warnings: list[str] = []
    if repeated:
        warnings.append(
            f"the workload has {len(workload.prompts)} prompts and the plan needs "
            f"{plan.warmup_requests + plan.requests_per_level * len(levels)}: "
            "prompts repeat (servers may cache them)"
        )
    state = Progress()
    deadline = perf_counter() + plan.time_budget_s if plan.time_budget_s else None
    memory_before = memory_snapshot()
    engine = plan.engine
    memory = MemoryReport(before=memory_before)
    with _Reporter(state, progress):
        if isinstance(engine, TransformersEngine):
            level_results, info, memory = _run_transformers(
                plan, engine, sampling, warm, level_prompts[0], state, deadline, memory
            )
        elif isinstance(engine, ManagedEngine):
            from worker.engines.managed import ManagedServer

            with ManagedServer(engine) as server:
                with MemorySampler(pid=server.pid).running() as sampler:
                    level_results = _run_openai(
                        plan, engine, sampling, warm, levels, level_prompts, state, deadline, warnings
                    )
                memory.after = memory_snapshot(server.pid)
                memory.peak_gib, memory.peak_source = (
                    sampler.peak_gib,
                    "sampled every 0.5 s (engine process tree or GPU)",
                )
                info = _engine_info(engine, version=server.version, command=server.argv)
        else:
            level_results = _run_openai(
                plan, engine, sampling, warm, levels, level_prompts, state, deadline, warnings
            )
            memory.after = memory_snapshot()
            info = _engine_info(engine)
    headroom = memory.after.free_gib if memory.after is not None and memory.after.kind == "gpu" else None
    return BenchResult(
        harness_version=HARNESS_VERSION,
        engine=info,
        workload=WorkloadInfo(
            name=workload.name,
            version=workload.version,
            prompts=len(workload.prompts),
            repeated_prompts=repeated,
        ),
        sampling=sampling,
        max_tokens=plan.max_tokens,
        seed=plan.seed,
        warmup_requests=len(warm),
        slo=plan.slo,
        hardware=hardware_facts(),
        memory=memory,
        headroom_gib=headroom,
        headroom_min_gib=plan.memory_headroom_min_gib,
        headroom_ok=(
            headroom >= plan.memory_headroom_min_gib
            if headroom is not None and plan.memory_headroom_min_gib is not None
            else None
        ),
        started_at=started,
        finished_at=datetime.now(UTC),
        levels=level_results,
        warnings=warnings,
    )


def _engine_info(
    engine: OpenAIEngine | ManagedEngine, *, version: str | None = None, command: list[str] | None = None
) -> EngineInfo:
    return EngineInfo(
        kind=engine.kind,
        server=engine.server,
        base_url=engine.base_url,
        model=engine.model,
        api=engine.api,
        version=version,
        command=command,
    )


def _run_openai(
    plan: BenchPlan,
    engine: OpenAIEngine | ManagedEngine,
    sampling: Sampling,
    warm: list[Prompt],
    levels: list[tuple[str, float]],
    level_prompts: list[list[Prompt]],
    state: Progress,
    deadline: float | None,
    warnings: list[str],
) -> list[LevelResult]:
    from worker.engines.openai_engine import Target, run_levels

    def job(index: int, p: Prompt) -> Job:
        body = request_body(
            model=engine.model,
            api=engine.api,
            prompt=p.text,
            max_tokens=plan.max_tokens,
            sampling=sampling,
            seed=plan.seed + index,
            ignore_eos=plan.ignore_eos,
            server=engine.server,
            request_token_ids=engine.request_token_ids,
            extra_body=engine.extra_body,
        )
        return Job(prompt_id=p.id, body=body)

    target = Target(
        base_url=engine.base_url,
        model=engine.model,
        api=engine.api,
        server=engine.server,
        api_key=engine.api_key if isinstance(engine, OpenAIEngine) else None,
        metrics_url=engine.metrics_url if isinstance(engine, OpenAIEngine) else None,
    )
    level_jobs: list[tuple[str, float, list[Job]]] = [
        (kind, value, [job(i, p) for i, p in enumerate(prompts)])
        for (kind, value), prompts in zip(levels, level_prompts, strict=True)
    ]
    count_tokens = _tokenizer_counter(plan.tokenizer)
    coro: Any = run_levels(
        plan,
        target,
        warmup=[job(i, p) for i, p in enumerate(warm)],
        levels=level_jobs,
        progress=state,
        count_tokens=count_tokens,
        deadline=deadline,
        warnings=warnings,
    )
    return asyncio.run(coro)


def _run_transformers(
    plan: BenchPlan,
    engine: TransformersEngine,
    sampling: Sampling,
    warm: list[Prompt],
    prompts: list[Prompt],
    state: Progress,
    deadline: float | None,
    memory: MemoryReport,
) -> tuple[list[LevelResult], EngineInfo, MemoryReport]:
    import transformers

    from worker.engines.transformers_engine import TransformersRunner

    runner = TransformersRunner(engine)
    levels = runner.run_levels(
        plan,
        sampling,
        warmup=[(p.id, p.text) for p in warm],
        jobs=[(p.id, p.text) for p in prompts],
        progress=state,
        deadline=deadline,
    )
    memory.after = memory_snapshot()
    memory.peak_gib, memory.peak_source = runner.peak_gib, runner.peak_source
    method = engine.model_dump(
        include={
            "method",
            "prompt_lookup_num_tokens",
            "max_matching_ngram_size",
            "assistant_model",
            "num_assistant_tokens",
            "assistant_early_exit",
        }
    )
    info = EngineInfo(
        kind="transformers",
        model=engine.model,
        version=f"transformers {transformers.__version__}",
        method={k: v for k, v in method.items() if v is not None},
        device=runner.device,
    )
    return levels, info, memory
