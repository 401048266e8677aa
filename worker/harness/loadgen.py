"""The async streaming load generator for OpenAI-compatible servers.

Accuracy under hundreds of concurrent streams on a small CPU comes from doing almost
nothing per chunk: each socket read appends ``(perf_counter(), bytes)`` to a list (in
``http1``, at the moment the bytes reach Python), and SSE/JSON parsing waits until the
level is over (``stream.to_record``). One keep-alive connection pool serves the whole
run, and each closed-loop level opens its connections before its clock starts.

What is sent is a list of units: a single request, or a conversation whose turns go one
after another, each built when it is sent from the target's answers so far (so a turn's
history is what this target said, not what a log recorded). Each turn is measured as a
request of its own.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any
from urllib.parse import urlsplit

from worker.harness.http1 import ClosedBeforeResponse, Http1Pool, HttpError
from worker.harness.results.result import Sampling
from worker.harness.stream import Exchange, answer_text


@dataclass(frozen=True, slots=True)
class Job:
    prompt_id: str
    body: bytes


@dataclass(frozen=True, slots=True)
class Unit:
    """Requests sent one after another: `body(k, answers)` is turn k's request given the
    earlier turns' answers. `offsets`: open loop, each turn's due time in seconds from the
    level's start (a later turn also waits for the answer before it)."""

    ids: tuple[str, ...]
    body: Callable[[int, Sequence[str]], bytes]
    offsets: tuple[float | None, ...] | None = None

    @classmethod
    def single(cls, job: Job, offset: float | None = None) -> Unit:
        return cls((job.prompt_id,), lambda k, answers: job.body, None if offset is None else (offset,))

    def with_offsets(self, offsets: tuple[float | None, ...]) -> Unit:
        return Unit(self.ids, self.body, offsets)


def as_units(items: Sequence[Job | Unit]) -> list[Unit]:
    return [item if isinstance(item, Unit) else Unit.single(item) for item in items]


def turns_of(items: Sequence[Job | Unit]) -> int:
    return sum(len(item.ids) if isinstance(item, Unit) else 1 for item in items)


@dataclass
class Progress:
    """Updated in place by the load generator; read by whoever reports progress."""

    label: str = ""
    # What the benchmark is doing, for the people waiting on it: "engine_starting" (a
    # launched server is coming up and loading its model), "model_loading" (the in-process
    # engine loads its model), then "benchmarking". Empty until the harness says.
    phase: str = ""
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
    messages: list[dict[str, str]] | None = None,
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
        body["messages"] = messages if messages is not None else [{"role": "user", "content": prompt}]
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

    async def run_unit(self, unit: Unit, level_start: float, deadline: float | None) -> list[Exchange]:
        """The unit's turns in order; after a failed turn the rest are recorded as not sent
        (their history would be missing an answer)."""
        out: list[Exchange] = []
        answers: list[str] = []
        for k, prompt_id in enumerate(unit.ids):
            offset = None if unit.offsets is None else unit.offsets[k]
            due = None if offset is None else level_start + offset
            if due is not None and (delay := due - perf_counter()) > 0:
                await asyncio.sleep(delay)
            if k and deadline is not None and perf_counter() >= deadline:
                break
            ex = await self.send(Job(prompt_id, unit.body(k, answers)), level_start, scheduled=due)
            out.append(ex)
            if k == len(unit.ids) - 1:
                break
            answer = answer_text(ex)
            if answer is None:
                out += [self._not_sent(pid, level_start, prompt_id) for pid in unit.ids[k + 1 :]]
                break
            answers.append(answer)
        return out

    def _not_sent(self, prompt_id: str, level_start: float, failed: str) -> Exchange:
        now = perf_counter()
        ex = Exchange(prompt_id=prompt_id, level_start=level_start, sent=now, ended=now)
        ex.transport_error = f"not sent: the conversation's turn {failed} failed"
        self.progress.done += 1
        self.progress.errors_hint += 1
        return ex

    async def closed_loop(
        self, jobs: Sequence[Job | Unit], concurrency: int, deadline: float | None
    ) -> list[Exchange]:
        """``concurrency`` slots; each sends its next unit as soon as its previous one ends
        (a conversation holds its slot for all its turns, as a user does)."""
        units = as_units(jobs)
        results: list[list[Exchange] | None] = [None] * len(units)
        queue = iter(enumerate(units))
        await self.pool.warm(min(concurrency, len(units)))
        level_start = perf_counter()

        async def slot() -> None:
            for index, unit in queue:
                if deadline is not None and perf_counter() >= deadline:
                    return
                results[index] = await self.run_unit(unit, level_start, deadline)

        await asyncio.gather(*(slot() for _ in range(min(concurrency, len(units)))))
        return [ex for r in results if r is not None for ex in r]

    async def open_loop(
        self,
        jobs: Sequence[Job | Unit],
        rate: float,
        *,
        arrival: str,
        gamma_shape: float,
        seed: int,
        deadline: float | None,
    ) -> list[Exchange]:
        """Sends on a fixed schedule whatever the responses do: seeded Poisson or gamma
        arrivals at `rate`, or (``arrival="trace"``) the units' own offsets, which the
        caller has scaled to `rate`. A conversation's first turn is due on the schedule,
        its later turns when their answer is in (and not before their own offset)."""
        units = as_units(jobs)
        if arrival != "trace":
            rng = random.Random(seed)
            t = 0.0
            timed = []
            for unit in units:
                timed.append(unit.with_offsets((t,) + (None,) * (len(unit.ids) - 1)))
                if arrival == "gamma":
                    t += rng.gammavariate(gamma_shape, 1.0 / (rate * gamma_shape))
                else:
                    t += rng.expovariate(rate)
            units = timed
        await self.pool.warm(min(len(units), max(1, int(rate))))
        level_start = perf_counter()
        tasks: list[asyncio.Task[list[Exchange]]] = []
        for unit in units:
            first = unit.offsets[0] if unit.offsets else None
            if first is None:
                raise ValueError("open loop: every unit needs its first turn's offset")
            delay = level_start + first - perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if deadline is not None and perf_counter() >= deadline:
                break
            tasks.append(asyncio.create_task(self.run_unit(unit, level_start, deadline)))
        return [ex for r in await asyncio.gather(*tasks) for ex in r]
