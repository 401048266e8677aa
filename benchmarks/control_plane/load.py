"""Closed-loop load from one asyncio process: `clients` coroutines, each sending its next
GET as soon as its last answer has been read in full, until the cell's time or request
budget is spent. Every latency is kept (no histogram buckets), measured from just before
the request is sent to the last byte of the body. Given several servers (two web hosts),
requests go to them in turn, as a round-robin load balancer sends new connections (the
sync workers close each connection after its answer)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np


@dataclass
class Cell:
    endpoint: str
    path: str
    clients: int
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    wall_s: float = 0.0
    bytes: int = 0
    client_cpu_s: float = 0.0
    server_cpu_s: float | None = None
    skipped: str = ""
    # The machine is shared: its 1-minute load average when the cell started, for context.
    load_average: float = 0.0
    # When set, request i goes to paths[i] instead of `path` (each object once: a cold cache).
    paths: list[str] = field(default_factory=list)
    sent: int = 0

    def summary(self) -> dict[str, Any]:
        lat = np.array(self.latencies_ms) if self.latencies_ms else None
        done = len(self.latencies_ms)
        out: dict[str, Any] = {
            "endpoint": self.endpoint,
            "path": self.path,
            "clients": self.clients,
            "completed": done,
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors),
            "wall_s": round(self.wall_s, 2),
            "requests_per_s": round(done / self.wall_s, 2) if self.wall_s else 0.0,
            "mean_bytes": round(self.bytes / done) if done else 0,
            "client_cpu_ms_per_request": round(1000 * self.client_cpu_s / done, 2) if done else None,
            "server_cpu_ms_per_request": (
                round(1000 * self.server_cpu_s / done, 1) if done and self.server_cpu_s is not None else None
            ),
            "skipped": self.skipped,
            "load_average_1m": round(self.load_average, 2),
        }
        for q in (50, 95, 99):
            out[f"p{q}_ms"] = round(float(np.percentile(lat, q)), 1) if lat is not None else None
        return out


async def _drive(
    base_urls: list[str],
    cell: Cell,
    headers: dict[str, str],
    duration_s: float,
    max_requests: int,
    timeout_s: float,
) -> None:
    limits = httpx.Limits(max_connections=cell.clients, max_keepalive_connections=cell.clients)
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=timeout_s)
            )
            for url in base_urls
        ]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + duration_s
        sent = 0

        async def one_client() -> None:
            nonlocal sent
            budget = min(max_requests, len(cell.paths)) if cell.paths else max_requests
            while loop.time() < deadline and sent < budget:
                path = cell.paths[sent] if cell.paths else cell.path
                client = clients[sent % len(clients)]
                sent += 1
                cell.sent = sent
                start = time.perf_counter()
                try:
                    response = await client.get(path)
                except httpx.TimeoutException:
                    cell.errors["timeout"] += 1
                    continue
                except httpx.HTTPError as exc:
                    cell.errors[type(exc).__name__] += 1
                    continue
                elapsed = (time.perf_counter() - start) * 1000
                if response.status_code >= 400:
                    cell.errors[f"HTTP {response.status_code}"] += 1
                else:
                    cell.latencies_ms.append(elapsed)
                    cell.bytes += len(response.content)

        await asyncio.gather(*(one_client() for _ in range(cell.clients)))


def run_cell(
    base_url: str | list[str],
    cell: Cell,
    headers: dict[str, str],
    *,
    duration_s: float,
    max_requests: int,
    timeout_s: float,
) -> Cell:
    cell.load_average = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    urls = [base_url] if isinstance(base_url, str) else list(base_url)
    asyncio.run(_drive(urls, cell, headers, duration_s, max_requests, timeout_s))
    cell.wall_s = time.perf_counter() - wall
    cell.client_cpu_s = time.process_time() - cpu
    return cell
