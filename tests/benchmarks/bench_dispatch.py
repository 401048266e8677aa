"""Benchmark (prints numbers, asserts nothing): how fast runs are created with their
outbox rows, and how fast the relay publishes them to a real Redis.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/specpact_bench \\
        .venv/bin/python tests/benchmarks/bench_dispatch.py [N]

Uses the database it is given (migrated) and a private redis-server on a reserved port.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "specpact.settings")

import django

django.setup()

from django.test import override_settings  # noqa: E402

from benchmarks_app.models import OutboxMessage  # noqa: E402
from benchmarks_app.services.outbox import outbox_relay  # noqa: E402
from benchmarks_app.services.runs import run_create  # noqa: E402
from contracts_app.models import Route  # noqa: E402
from tests.support.factories import example, make_version, variant  # noqa: E402
from tests.support.processes import RedisServer  # noqa: E402

ENDPOINTS = {"baseline": {"base_url": "http://127.0.0.1:1", "model": "m"},
             "candidate": {"base_url": "http://127.0.0.1:2", "model": "m"}}  # fmt: skip


def _create(n: int, slug: str, baseline: Any, candidate: Any) -> float:
    started = time.perf_counter()
    for _ in range(n):
        run_create(
            route=Route.objects.get(slug=slug),
            baseline=baseline,
            candidate=candidate,
            lane="extraction",
            actor=None,
            engine_kind="openai",
            endpoints=ENDPOINTS,
            pool="bench",
            overrides={"concurrency": [1, 4], "requests_per_level": 64, "max_tokens": 128},
        )
    return time.perf_counter() - started


def main(n: int) -> None:
    slug = f"bench-{int(time.time())}"
    doc = example("contract-summaries-ngram")
    baseline = make_version(slug, variant(doc, **{"speculation.num_speculative_tokens": 4}))
    candidate = make_version(slug, variant(doc, **{"speculation.num_speculative_tokens": 6}))
    redis = RedisServer()
    redis.start()
    with override_settings(CELERY_BROKER_URL=redis.url):
        # Broker up: each run is created, committed and published by the kick after commit.
        up = _create(n, slug, baseline, candidate)
        kicked = OutboxMessage.objects.filter(run__route__slug=slug, publish_count=1, tries=1).count()
        # Broker down: created all the same; the relay drains them once it is back.
        redis.stop()
        down = _create(n, slug, baseline, candidate)
        redis.start()
        OutboxMessage.objects.filter(run__route__slug=slug).update(next_try_at=None)
        started = time.perf_counter()
        report = outbox_relay(limit=n)
        relayed = time.perf_counter() - started
    redis.close()
    print(f"broker up: {n} runs created and published in {up:.2f} s ({1000 * up / n:.1f} ms each)")
    print(f"  of which published by the kick after commit: {kicked}")
    print(
        f"broker down: {n} runs created in {down:.2f} s ({1000 * down / n:.1f} ms each, failed kick included)"
    )
    print(
        f"relay, broker back: {report.published} published in {relayed:.2f} s "
        f"({report.published / relayed:.0f} per s)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
