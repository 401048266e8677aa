"""The async streaming load generator for OpenAI-compatible servers.

Accuracy under hundreds of concurrent streams on a small CPU comes from doing almost
nothing per chunk: each socket read appends ``(perf_counter(), bytes)`` to a list, and
parsing waits until the level is over (``stream.to_record``). One aiohttp session and
connection pool serve the whole run, so connections are reused across levels.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import aiohttp

from worker.harness.results import Sampling
from worker.harness.stream import Exchange

_ERROR_BODY_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class Job:
    prompt_id: str
    body: bytes


@dataclass
class Progress:
    """Updated in place by the load generator; read by whoever reports progress."""

    label: str = ""
    done: int = 0
    total: int = 0
    errors_hint: int = 0  # transport/HTTP failures seen live; stream errors show after parsing


def endpoint(base_url: str, api: str) -> str:
    root = base_url.rstrip("/")
    if not root.endswith("/v1"):
        root += "/v1"
    return root + ("/chat/completions" if api == "chat" else "/completions")


def request_body(
    *,
    model: str,
    api: str,
    prompt: str,
    max_tokens: int,
    sampling: Sampling,
    seed: int,
    ignore_eos: bool,
    server: str,
    request_token_ids: bool,
    extra_body: dict[str, Any],
) -> bytes:
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
    }
    if api == "chat":
        body["messages"] = [{"role": "user", "content": prompt}]
    else:
        body["prompt"] = prompt
    if not sampling.greedy:
        body["seed"] = seed  # reproducible sampling where the server honours it
    if ignore_eos:
        body["ignore_eos"] = True
    if request_token_ids and server == "vllm":
        body["return_token_ids"] = True  # per-chunk token ids: exact tokens per chunk
    body.update(extra_body)
    return json.dumps(body).encode()


class LoadGenerator:
    def __init__(
        self,
        *,
        url: str,
        api_key: str | None,
        request_timeout_s: float,
        stall_timeout_s: float,
        max_connections: int,
        progress: Progress,
    ) -> None:
        self.url = url
        self.headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.timeout = aiohttp.ClientTimeout(total=request_timeout_s, sock_read=stall_timeout_s)
        self.request_timeout_s, self.stall_timeout_s = request_timeout_s, stall_timeout_s
        self.max_connections = max_connections
        self.progress = progress
        self.session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> LoadGenerator:
        connector = aiohttp.TCPConnector(limit=self.max_connections, limit_per_host=0, keepalive_timeout=120)
        self.session = aiohttp.ClientSession(connector=connector, timeout=self.timeout)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.session is not None:
            await self.session.close()

    async def send(self, job: Job, level_start: float, scheduled: float | None = None) -> Exchange:
        assert self.session is not None
        ex = Exchange(prompt_id=job.prompt_id, level_start=level_start, scheduled=scheduled)
        reads = ex.reads
        append = reads.append
        ex.sent = perf_counter()
        try:
            async with self.session.post(self.url, data=job.body, headers=self.headers) as resp:
                ex.status = resp.status
                ex.content_type = resp.headers.get("Content-Type", "")
                if resp.status != 200:
                    ex.body = await resp.content.read(_ERROR_BODY_LIMIT)
                else:
                    # The hot loop: one timestamp per socket read, nothing else.
                    async for data in resp.content.iter_any():
                        append((perf_counter(), data))
        except aiohttp.SocketTimeoutError:
            ex.transport_error = f"stalled: no data for {self.stall_timeout_s:g} s"
        except aiohttp.ConnectionTimeoutError:
            ex.transport_error = "connection timed out"
        except TimeoutError:
            ex.transport_error = f"timed out after {self.request_timeout_s:g} s"
        except aiohttp.ClientPayloadError as exc:
            ex.transport_error = f"stream dropped: {exc}"
        except aiohttp.ClientError as exc:
            ex.transport_error = f"connection error: {type(exc).__name__}: {exc}"
        ex.ended = perf_counter()
        if ex.transport_error is not None or ex.status != 200:
            self.progress.errors_hint += 1
        self.progress.done += 1
        return ex

    async def closed_loop(
        self, jobs: Sequence[Job], concurrency: int, deadline: float | None
    ) -> list[Exchange]:
        """``concurrency`` slots; each sends its next job as soon as its previous one ends."""
        results: list[Exchange | None] = [None] * len(jobs)
        queue = iter(enumerate(jobs))
        level_start = perf_counter()

        async def slot() -> None:
            for index, job in queue:
                if deadline is not None and perf_counter() >= deadline:
                    return
                results[index] = await self.send(job, level_start)

        await asyncio.gather(*(slot() for _ in range(min(concurrency, len(jobs)))))
        return [r for r in results if r is not None]

    async def open_loop(
        self,
        jobs: Sequence[Job],
        rate: float,
        *,
        arrival: str,
        gamma_shape: float,
        seed: int,
        deadline: float | None,
    ) -> list[Exchange]:
        """Sends on a fixed, seeded arrival schedule whatever the responses do."""
        rng = random.Random(seed)
        offsets: list[float] = []
        t = 0.0
        for _ in jobs:
            offsets.append(t)
            if arrival == "gamma":
                t += rng.gammavariate(gamma_shape, 1.0 / (rate * gamma_shape))
            else:
                t += rng.expovariate(rate)
        level_start = perf_counter()
        tasks: list[asyncio.Task[Exchange]] = []
        for job, offset in zip(jobs, offsets, strict=True):
            due = level_start + offset
            delay = due - perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if deadline is not None and perf_counter() >= deadline:
                break
            tasks.append(asyncio.create_task(self.send(job, level_start, scheduled=due)))
        return list(await asyncio.gather(*tasks))
