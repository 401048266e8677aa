"""The ``openai`` engine: benchmark levels against a running OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import aiohttp

from worker.harness import speculation as spec
from worker.harness.aggregate import build_level
from worker.harness.loadgen import Job, LoadGenerator, Progress, Unit, turns_of
from worker.harness.plan import BenchPlan
from worker.harness.results import LevelResult, SpeculationNotReported, SpeculationReported
from worker.harness.stream import Exchange, to_record


@dataclass
class Target:
    base_url: str
    model: str
    api: str
    server: str
    api_key: str | None = None
    metrics_url: str | None = None

    @property
    def root(self) -> str:
        return self.base_url.rstrip("/").removesuffix("/v1")


async def _get_text(session: aiohttp.ClientSession, url: str) -> str | None:
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=10)) as resp:
            return await resp.text() if resp.status == 200 else None
    except (aiohttp.ClientError, TimeoutError):
        return None


async def _counters(session: aiohttp.ClientSession, target: Target) -> dict[str, float] | None:
    text = await _get_text(session, target.metrics_url or target.root + "/metrics")
    return spec.parse_prometheus(text) if text is not None else None


async def _sglang_info(session: aiohttp.ClientSession, target: Target) -> dict[str, Any] | None:
    try:
        async with session.get(
            target.root + "/get_server_info", timeout=aiohttp.ClientTimeout(total=10)
        ) as r:
            data = await r.json() if r.status == 200 else None
            return data if isinstance(data, dict) else None
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None


async def run_levels(
    plan: BenchPlan,
    target: Target,
    *,
    warmup: Sequence[Job | Unit],
    levels: Sequence[tuple[str, float, Sequence[Job | Unit]]],
    progress: Progress,
    count_tokens: Callable[[str], int] | None,
    deadline: float | None,
    warnings: list[str],
) -> list[LevelResult]:
    first = int(levels[0][1]) if levels and levels[0][0] == "concurrency" else 1
    gen = LoadGenerator(
        base_url=target.base_url,
        api=target.api,
        api_key=target.api_key,
        request_timeout_s=plan.request_timeout_s,
        stall_timeout_s=plan.stall_timeout_s,
        progress=progress,
    )
    results: list[LevelResult] = []
    async with gen, aiohttp.ClientSession() as session:
        if warmup:
            progress.label, progress.done, progress.total = "warm-up", 0, len(warmup)
            await gen.closed_loop(warmup, max(1, min(len(warmup), first)), None)
        for kind, value, jobs in levels:
            if deadline is not None and perf_counter() >= deadline:
                warnings.append(f"time budget spent: level {kind}={value:g} not run")
                continue
            progress.label = f"{kind}={value:g}"
            progress.done, progress.total, progress.errors_hint = 0, turns_of(jobs), 0
            counters_before = (
                await _counters(session, target) if target.server in spec.COUNTER_PREFIX else None
            )
            if kind == "concurrency":
                exchanges = await gen.closed_loop(jobs, int(value), deadline)
            else:
                exchanges = await gen.open_loop(
                    jobs,
                    value,
                    arrival=plan.arrival,
                    gamma_shape=plan.gamma_shape,
                    seed=plan.seed,
                    deadline=deadline,
                )
            speculation = await _level_speculation(session, target, counters_before)
            results.append(_finish_level(plan, kind, value, jobs, exchanges, speculation, count_tokens))
    return results


async def _level_speculation(
    session: aiohttp.ClientSession, target: Target, before: dict[str, float] | None
) -> SpeculationReported | SpeculationNotReported | None:
    """From the engine's own endpoints; None means "use per-request counts"."""
    if target.server in spec.COUNTER_PREFIX:
        result = spec.from_counters(target.server, before, await _counters(session, target))
        if result.reported or target.server == "vllm":
            return result
        return None  # llama-server without --metrics: fall back to per-response timings
    if target.server == "sglang":
        return spec.from_sglang_info(await _sglang_info(session, target))
    return SpeculationNotReported(reason=f"a {target.server} server reports no speculation metrics here")


def _finish_level(
    plan: BenchPlan,
    kind: str,
    value: float,
    jobs: Sequence[Job | Unit],
    exchanges: list[Exchange],
    speculation: SpeculationReported | SpeculationNotReported | None,
    count_tokens: Callable[[str], int] | None,
) -> LevelResult:
    records = [to_record(ex, count_tokens) for ex in exchanges]
    for r in records:
        if r.error is None and r.output_tokens > plan.max_tokens:
            r.error = f"the server returned {r.output_tokens} tokens, more than max_tokens {plan.max_tokens}"
    if speculation is None:
        speculation = spec.from_requests(records, "llama.cpp timings.draft_n / draft_n_accepted")
    start = min((ex.sent for ex in exchanges), default=0.0)
    end = max((ex.ended for ex in exchanges), default=0.0)
    return build_level(
        kind=kind,
        value=value,
        records=records,
        duration_s=max(0.0, end - start),
        speculation=speculation,
        slo=plan.slo,
        truncated=len(exchanges) < turns_of(jobs),
    )


def run_sync(coro_factory: Callable[[], Any]) -> Any:
    """Runs the async benchmark in a fresh event loop (callers are synchronous)."""
    return asyncio.run(coro_factory())
