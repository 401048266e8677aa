"""The async streaming load generator for OpenAI-compatible servers.

Accuracy under hundreds of concurrent streams on a small CPU comes from doing almost
nothing per chunk: each socket read appends ``(perf_counter(), bytes)`` to a list (in
``http1``, at the moment the bytes reach Python), and SSE/JSON parsing waits until the
level is over (``stream.to_record``). One keep-alive connection pool serves the whole
run, and each closed-loop level opens its connections before its clock starts.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any
from urllib.parse import urlsplit

from worker.harness.http1 import ClosedBeforeResponse, Http1Pool, HttpError
from worker.harness.results import Sampling
from worker.harness.stream import Exchange


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
    """Sends jobs over one keep-alive connection pool and records what came back."""

    def __init__(
        self,
        *,
        base_url: str,
        api: str,
        api_key: str | None,
        request_timeout_s: float,
        stall_timeout_s: float,
        progress: Progress,
    ) -> None:
        self.pool = Http1Pool(base_url)
        self.path = urlsplit(endpoint(base_url, api)).path
        self.headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.request_timeout_s, self.stall_timeout_s = request_timeout_s, stall_timeout_s
        self.progress = progress
        self._watchdog: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LoadGenerator:
        self._watchdog = asyncio.create_task(self._watch())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        self.pool.close()

    async def _watch(self) -> None:
        """Fails stalled and overdue requests: one pass over the in-flight requests every
        fraction of a second instead of a timer per read."""
        interval = min(0.25, self.stall_timeout_s / 4, self.request_timeout_s / 4)
        while True:
            await asyncio.sleep(interval)
            now = perf_counter()
            for ex in list(self.pool.inflight):
                if now - ex.resp.last_activity > self.stall_timeout_s:
                    ex.fail(HttpError(f"stalled: no data for {self.stall_timeout_s:g} s"))
                elif now - ex.sent > self.request_timeout_s:
                    ex.fail(HttpError(f"timed out after {self.request_timeout_s:g} s"))

    async def send(self, job: Job, level_start: float, scheduled: float | None = None) -> Exchange:
        ex = Exchange(prompt_id=job.prompt_id, level_start=level_start, scheduled=scheduled)
        data = self.pool.build("POST", self.path, job.body, self.headers)
        for attempt in (0, 1):
            try:
                ex.sent, pending, reused = await self.pool.request(data)
            except HttpError as exc:
                ex.sent = perf_counter()
                ex.transport_error = str(exc)
                break
            try:
                resp = await pending.done
            except ClosedBeforeResponse as exc:
                if reused and attempt == 0:
                    continue  # the server had closed the idle keep-alive connection
                ex.transport_error = str(exc)
            except HttpError as exc:
                ex.transport_error = str(exc)
            else:
                ex.status = resp.status
                ex.content_type = resp.headers.get("content-type", "")
                ex.reads, ex.body = resp.reads, resp.body
            ex.ended = pending.resp.last_activity
            break
        if not ex.ended:
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
        await self.pool.warm(min(concurrency, len(jobs)))
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
        await self.pool.warm(min(len(jobs), max(1, int(rate))))
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
