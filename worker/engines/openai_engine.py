"""The ``openai`` engine: benchmark levels against a running OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import aiohttp

from worker.harness.acceptance import llamacpp, sglang, tgi, trtllm, vllm
from worker.harness.acceptance.prometheus import Metrics, parse
from worker.harness.acceptance.requests import from_requests
from worker.harness.aggregate import build_level
from worker.harness.loadgen import Job, LoadGenerator, Progress, Unit, turns_of
from worker.harness.plan import BenchPlan
from worker.harness.results.levels import LevelResult
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported
from worker.harness.stream import Exchange, to_record
from worker.outbound import check_target


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


async def _get(session: aiohttp.ClientSession, url: str) -> tuple[int, str | None]:
    # To the address checked against the worker's allowlist, never to the name again.
    pinned = check_target(url)
    sni = pinned.host if url.startswith("https:") else None
    try:
        async with session.get(
            pinned.pinned_url,
            headers={"Host": pinned.authority},
            timeout=aiohttp.ClientTimeout(total=10),
            allow_redirects=False,  # a redirect would go to an unchecked address
            server_hostname=sni,
        ) as resp:
            return resp.status, (await resp.text() if resp.status == 200 else None)
    except (aiohttp.ClientError, TimeoutError):
        return 0, None


async def _metrics(session: aiohttp.ClientSession, target: Target) -> Metrics | None:
    # trtllm-serve serves its Prometheus registry at /prometheus/metrics (acceptance/trtllm.py).
    path = trtllm.METRICS_PATH if target.server == "trtllm" else "/metrics"
    _, text = await _get(session, target.metrics_url or target.root + path)
    return parse(text) if text is not None else None


async def _sglang_info(session: aiohttp.ClientSession, target: Target) -> dict[str, Any] | None:
    """`/server_info`; `/get_server_info` where a release answers 404 (it is the older name)."""
    for path in sglang.INFO_PATHS:
        status, text = await _get(session, target.root + path)
        if status == 404:
            continue
        try:
            data = json.loads(text) if text is not None else None
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    return None


@dataclass
class Snapshot:
    """What an engine says about its speculation at one moment (before or after a level)."""

    metrics: Metrics | None = None
    info: dict[str, Any] | None = None


_METRICS_SERVERS = ("vllm", "llamacpp", "tgi", "trtllm")


async def _snapshot(session: aiohttp.ClientSession, target: Target) -> Snapshot:
    if target.server in _METRICS_SERVERS:
        return Snapshot(metrics=await _metrics(session, target))
    if target.server == "sglang":
        return Snapshot(info=await _sglang_info(session, target))
    return Snapshot()


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
    if target.metrics_url:  # refused before the first request, not mid-run
        check_target(target.metrics_url)
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
            before = await _snapshot(session, target)
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
            speculation = await _level_speculation(session, target, before)
            results.append(_finish_level(plan, kind, value, jobs, exchanges, speculation, count_tokens))
    return results


async def _level_speculation(
    session: aiohttp.ClientSession, target: Target, before: Snapshot
) -> SpeculationReported | SpeculationNotReported | None:
    """From the engine's own endpoints, differenced over the level; None: per-request counts."""
    after = await _snapshot(session, target)
    if target.server == "vllm":
        return vllm.from_metrics(before.metrics, after.metrics)
    if target.server == "llamacpp":
        result = llamacpp.from_metrics(before.metrics, after.metrics)
        # Without --metrics (501), or no counters: each response's timings are the level's.
        return result if result.reported else None
    if target.server == "tgi":
        return tgi.from_metrics(before.metrics, after.metrics)
    if target.server == "trtllm":
        return trtllm.from_metrics(before.metrics, after.metrics)
    if target.server == "sglang":
        metrics = await _metrics(session, target)  # only with --enable-metrics: quoted, not used
        return sglang.from_server_info(before.info, after.info, metrics)
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
        speculation = from_requests(records, llamacpp.TIMINGS_SOURCE)
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
