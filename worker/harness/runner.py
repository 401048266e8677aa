"""``run_benchmark(plan) -> BenchResult``: the one call the dispatching worker makes.

Synchronous (it runs its own event loop for the ``openai``/``managed`` engines), pure in
the sense that everything it needs is in the plan and everything it learns is in the
result; progress is reported through an optional callback, at most twice a second.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from time import perf_counter
from typing import Any

from worker.hardware import MemorySampler, hardware_facts, memory_snapshot
from worker.harness import HARNESS_VERSION
from worker.harness.endpoint_auth import bearer_token
from worker.harness.loadgen import Progress, Unit, request_body
from worker.harness.plan import BenchPlan, ManagedEngine, OpenAIEngine, TransformersEngine
from worker.harness.results.levels import LevelResult
from worker.harness.results.result import BenchResult, EngineInfo, MemoryReport, Sampling, WorkloadInfo
from worker.workloads import Conversation, Prompt, Workload, WorkloadError, load_workload

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


class ConversationStream:
    """The workload's conversations in the run's order, round and round: seeded shuffle,
    except for a trace (arrival offsets), whose order is its schedule, or when the plan
    says the file is already in order (`shuffle=False`)."""

    def __init__(self, workload: Workload, *, seed: int, shuffle: bool = True) -> None:
        self.order = list(workload.conversations)
        if shuffle and not workload.has_arrivals:
            random.Random(seed).shuffle(self.order)
        self.position = 0

    def next(self) -> Conversation:
        conv = self.order[self.position % len(self.order)]
        self.position += 1
        return conv

    def warmup(self, n: int) -> list[Conversation]:
        """`n` warm-up requests: the first turn of each of the next `n` conversations."""
        return [self.next().truncated(1) for _ in range(n)]

    def requests(self, n: int) -> list[Conversation]:
        """Whole conversations until they hold `n` requests (turns), the last cut to fit."""
        out: list[Conversation] = []
        left = n
        while left > 0:
            conv = self.next().truncated(left)
            out.append(conv)
            left -= len(conv.turns)
        return out

    @property
    def repeated(self) -> bool:
        return self.position > len(self.order)


def assign_conversations(
    workload: Workload, *, seed: int, warmup: int, per_level: list[int], shuffle: bool = True
) -> tuple[list[Conversation], list[list[Conversation]], bool]:
    """`assign_prompts` for conversations: warm-up first, then each level takes whole
    conversations until it has its number of requests. Returns (warm-up, levels, whether
    conversations repeat)."""
    stream = ConversationStream(workload, seed=seed, shuffle=shuffle)
    warm = stream.warmup(warmup)
    levels = [stream.requests(n) for n in per_level]
    return warm, levels, stream.repeated


def trace_offsets(conversations: list[Conversation], rate: float) -> list[tuple[float | None, ...]]:
    """Each turn's due time for an open-loop level: the recorded arrival offsets of this
    stretch of the trace, from its first arrival, scaled so that the conversations arrive
    at `rate` per second on average (the trace's shape, its bursts and lulls, is kept)."""
    firsts = [c.arrival_s for c in conversations]
    if any(a is None for a in firsts):
        raise WorkloadError("arrival 'trace' needs a workload whose every request has arrival_s")
    start = min(a for a in firsts if a is not None)
    span = max(a for a in firsts if a is not None) - start
    n = len(conversations)
    # n arrivals at `rate` take (n - 1) / rate seconds; a stretch recorded all at once
    # (span 0) is sent all at once.
    scale = ((n - 1) / rate) / span if span > 0 and n > 1 else 0.0
    out: list[tuple[float | None, ...]] = []
    for conv in conversations:
        due = (None if t.arrival_s is None else max(0.0, (t.arrival_s - start) * scale) for t in conv.turns)
        out.append(tuple(due))
    return out


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
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="bench-progress", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.tick()

    def tick(self) -> None:
        """Report now (a phase change should not wait for the next interval)."""
        if self.callback is not None:
            with self._lock:
                self.callback(self.progress)

    def phase(self, name: str) -> None:
        self.progress.phase = name
        self.tick()

    def __enter__(self) -> _Reporter:
        if self.callback is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.callback is not None:
            self._stop.set()
            self._thread.join()
            self.tick()


def _bearer_token(engine: Any) -> str | None:
    if not isinstance(engine, OpenAIEngine):
        return None
    return bearer_token(
        base_url=engine.base_url,
        api_key=engine.api_key,
        auth_binding=engine.auth_binding,
    )


def run_benchmark(plan: BenchPlan, progress: ProgressCallback | None = None) -> BenchResult:
    """Benchmarks one engine configuration over the plan's workload and levels.

    Raises ``WorkloadError`` for an unusable workload and ``EngineStartError`` when a
    managed engine won't start; per-request failures never raise (they are counted).
    """
    started = datetime.now(UTC)
    workload = load_workload(plan.workload)
    sampling = plan.sampling or workload.sampling or Sampling()
    levels = plan.level_values
    if plan.arrival == "trace" and not workload.has_arrivals:
        raise WorkloadError(f"{workload.name}: arrival 'trace' needs arrival_s on every request")
    warm, level_prompts, repeated = assign_conversations(
        workload,
        seed=plan.seed,
        warmup=plan.warmup_requests,
        per_level=[plan.requests_per_level] * len(levels),
        shuffle=plan.shuffle,
    )
    warnings: list[str] = []
    if repeated:
        needed = plan.warmup_requests + plan.requests_per_level * len(levels)
        warnings.append(
            f"the workload has {workload.requests} requests in {len(workload.conversations)} "
            f"conversations and the plan needs {needed}: requests repeat (servers may cache them)"
        )
    state = Progress()
    deadline = perf_counter() + plan.time_budget_s if plan.time_budget_s else None
    memory_before = memory_snapshot()
    engine = plan.engine
    memory = MemoryReport(before=memory_before)
    with _Reporter(state, progress) as reporter:
        if isinstance(engine, TransformersEngine):
            reporter.phase("model_loading")
            level_results, info, memory = _run_transformers(
                plan, engine, sampling, warm, level_prompts[0], reporter, deadline, memory
            )
        elif isinstance(engine, ManagedEngine):
            from worker.engines.managed import ManagedServer

            reporter.phase("engine_starting")
            with ManagedServer(engine) as server:
                engine = server.engine  # on the port it was launched on
                reporter.phase("benchmarking")
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
            reporter.phase("benchmarking")
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
            prompts=workload.requests,
            repeated_prompts=repeated,
            digest=workload.digest,
            conversations=len(workload.conversations) if workload.multi_turn else None,
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
    warm: list[Conversation],
    levels: list[tuple[str, float]],
    level_prompts: list[list[Conversation]],
    state: Progress,
    deadline: float | None,
    warnings: list[str],
) -> list[LevelResult]:
    from worker.engines.openai_engine import Target, run_levels

    def unit(conv: Conversation, first_index: int) -> Unit:
        def body(k: int, answers: Sequence[str]) -> bytes:
            turn = conv.turns[k]
            chat = engine.api == "chat"
            return request_body(
                model=engine.model,
                api=engine.api,
                prompt="" if chat else conv.prompt_text(k, answers),
                messages=conv.chat_messages(k, answers) if chat else None,
                max_tokens=min(plan.max_tokens, turn.max_tokens or plan.max_tokens),
                sampling=sampling,
                seed=plan.seed + first_index + k,
                ignore_eos=plan.ignore_eos,
                server=engine.server,
                request_token_ids=engine.request_token_ids,
                extra_body=engine.extra_body,
            )

        if len(conv.turns) == 1:
            # Built before the level's clock starts: nothing but sending happens during it.
            built = body(0, [])
            return Unit((conv.turns[0].id,), lambda k, answers: built)
        return Unit(tuple(t.id for t in conv.turns), body)

    def units(convs: list[Conversation], kind: str, value: float) -> list[Unit]:
        out, index = [], 0
        for conv in convs:
            out.append(unit(conv, index))
            index += len(conv.turns)
        if kind == "rate" and plan.arrival == "trace":
            out = [u.with_offsets(o) for u, o in zip(out, trace_offsets(convs, value), strict=True)]
        return out

    target = Target(
        base_url=engine.base_url,
        model=engine.model,
        api=engine.api,
        server=engine.server,
        api_key=_bearer_token(engine),
        metrics_url=engine.metrics_url if isinstance(engine, OpenAIEngine) else None,
    )
    level_jobs: list[tuple[str, float, Sequence[Unit]]] = [
        (kind, value, units(convs, kind, value))
        for (kind, value), convs in zip(levels, level_prompts, strict=True)
    ]
    count_tokens = _tokenizer_counter(plan.tokenizer)
    coro: Any = run_levels(
        plan,
        target,
        warmup=units(warm, "concurrency", 1),
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
    warm: list[Conversation],
    conversations: list[Conversation],
    reporter: _Reporter,
    deadline: float | None,
    memory: MemoryReport,
) -> tuple[list[LevelResult], EngineInfo, MemoryReport]:
    import transformers

    from worker.engines.transformers_engine import TransformersRunner

    runner = TransformersRunner(engine)  # loads the model(s)
    reporter.phase("benchmarking")
    levels = runner.run_levels(
        plan,
        sampling,
        warmup=warm,
        conversations=conversations,
        progress=reporter.progress,
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
