"""Figures, not pass/fail: what a result weighs, and what checking one costs.

    .venv/bin/python benchmarks/result_size.py            # 4 x 512 x 512 size, 100,000 requests
    .venv/bin/python benchmarks/result_size.py --levels 4 --requests 512 --tokens 512 --big 0

1. The size of one arm-pair upload (baseline + candidate) of LEVELS x REQUESTS x TOKENS,
   raw and gzipped, in result schema 2 and, for comparison, schema 1 (float-ms offsets).
   The records are synthetic but have the harness's shape and realistic values: a TTFT of
   ~150 ms, ~20 ms a token, speculation's 1-4 tokens a chunk on the candidate, token ids of a
   256k vocabulary, ~4 characters of text a token. Levels go through the harness's own
   `build_level`, so the figures are the ones a worker uploads.
2. One level of BIG requests (TOKENS_BIG tokens each): json.loads, then the control
   plane's checks (`validate_result_stream`) and aggregation (`aggregate_result`), with
   the wall time of each and the peak memory each adds (tracemalloc, measured in a second
   pass so that the timings are not slowed by it).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks_app.aggregates import aggregate_result
from worker.harness.aggregate import build_level
from worker.harness.results.requests import RequestRecord
from worker.harness.results.result import BenchResult, EngineInfo, HardwareFacts, Sampling, WorkloadInfo
from worker.harness.results.speculation import SpeculationNotReported
from worker.harness.validate import validate_result_stream

MIB = 1024 * 1024
_WORDS = ["the", "contract", "term", "shall", "party", "notice", "clause", "renewal", "fee", "date"]


def _record(rng: random.Random, i: int, tokens: int, speculative: bool) -> RequestRecord:
    sizes: list[int] = []
    while sum(sizes) < tokens:
        sizes.append(min(rng.choice((1, 2, 3, 4)) if speculative else 1, tokens - sum(sizes)))
    t = rng.lognormvariate(5.0, 0.2)  # ~150 ms TTFT
    offsets = [t]
    for n in sizes[1:]:
        t += rng.lognormvariate(3.0, 0.25) * n  # ~20 ms a token
        offsets.append(t)
    text = " ".join(rng.choice(_WORDS) for _ in range(tokens))[: tokens * 4]
    return RequestRecord(
        prompt_id=f"p{i:06d}",
        send_s=i * 0.01,
        ttft_ms=offsets[0],
        e2e_ms=offsets[-1],
        tpot_ms=(offsets[-1] - offsets[0]) / (tokens - 1) if tokens > 1 else None,
        chunk_offsets_ms=offsets,
        chunk_tokens=sizes,
        chunk_tokens_source="token_ids",
        output_tokens=tokens,
        output_tokens_source="usage",
        output_token_ids=[rng.randrange(262_144) for _ in range(tokens)],
        output_text=text,
        finish_reason="length",
    )


def _arm(rng: random.Random, levels: int, requests: int, tokens: int, *, speculative: bool) -> BenchResult:
    built = []
    for level in range(levels):
        records = [_record(rng, i, tokens, speculative) for i in range(requests)]
        built.append(
            build_level(
                kind="concurrency",
                value=2**level,
                records=records,
                duration_s=60.0,
                speculation=SpeculationNotReported(),
                slo=None,
                truncated=False,
            )
        )
    now = "2026-12-01T00:00:00Z"
    return BenchResult.model_validate(
        {
            "harness_version": "bench",
            "engine": EngineInfo(kind="openai", model="m").model_dump(),
            "workload": WorkloadInfo(name="chat", prompts=requests).model_dump(),
            "sampling": Sampling().model_dump(),
            "max_tokens": tokens,
            "seed": 0,
            "warmup_requests": 0,
            "hardware": HardwareFacts(hostname="h", cpu_model="c", cpu_cores=2, memory_gib=8).model_dump(),
            "started_at": now,
            "finished_at": now,
            "levels": [lv.model_dump() for lv in built],
        }
    )


def _as_schema_1(result: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The same result as schema 1 wrote it: float-ms offsets (full float precision)."""
    old = json.loads(json.dumps(result))
    old["schema_version"] = 1
    for level in old["levels"]:
        for r in level["requests"]:
            us = r.pop("chunk_offsets_us", None)
            r["chunk_offsets_ms"] = [u / 1000 + rng.random() / 1e4 for u in us or []]
    return old


def _sizes(levels: int, requests: int, tokens: int) -> None:
    rng = random.Random(1)
    started = time.perf_counter()
    outcome = {
        "baseline": _arm(rng, levels, requests, tokens, speculative=False).model_dump(mode="json"),
        "candidate": _arm(rng, levels, requests, tokens, speculative=True).model_dump(mode="json"),
    }
    built_s = time.perf_counter() - started
    print(f"{levels} levels x {requests} requests x {tokens} tokens, both arms (built in {built_s:.0f} s):")
    for name, doc in (
        ("schema 2", outcome),
        ("schema 1", {arm: _as_schema_1(res, rng) for arm, res in outcome.items()}),
    ):
        raw = json.dumps(doc, separators=(",", ":")).encode()
        packed = gzip.compress(raw, compresslevel=6)
        print(
            f"  {name}: {len(raw):>11,} bytes raw ({len(raw) / MIB:6.1f} MiB), "
            f"{len(packed):>11,} gzipped ({len(packed) / MIB:5.1f} MiB, {len(raw) / len(packed):.1f}x)"
        )


def _timed(label: str, call: Any) -> Any:
    started = time.perf_counter()
    value = call()
    print(f"  {label:<34} {time.perf_counter() - started:7.2f} s")
    return value


def _peak(label: str, call: Any) -> None:
    tracemalloc.start()
    call()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  {label:<34} {peak / MIB:7.1f} MiB peak added")


def _big(requests: int, tokens: int) -> None:
    rng = random.Random(2)
    arm = _arm(rng, 1, requests, tokens, speculative=True).model_dump(mode="json")
    raw = json.dumps(arm, separators=(",", ":")).encode()
    del arm
    print(f"one level of {requests:,} requests x {tokens} tokens: {len(raw) / MIB:.1f} MiB of JSON")
    data = _timed("json.loads (what DRF holds)", lambda: json.loads(raw))
    _timed("validate_result_stream", lambda: validate_result_stream(data))
    _timed("aggregate_result", lambda: aggregate_result(data))
    del data
    _peak("json.loads (the parsed body itself)", lambda: json.loads(raw))
    data = json.loads(raw)
    _peak("validate_result_stream", lambda: validate_result_stream(data))
    _peak("aggregate_result", lambda: aggregate_result(data))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  process peak RSS (everything above): {rss:,.0f} MiB")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--levels", type=int, default=4)
    p.add_argument("--requests", type=int, default=512)
    p.add_argument("--tokens", type=int, default=512)
    p.add_argument("--big", type=int, default=100_000, help="requests of the memory test (0: skip)")
    p.add_argument("--tokens-big", type=int, default=64)
    args = p.parse_args()
    _sizes(args.levels, args.requests, args.tokens)
    if args.big:
        _big(args.big, args.tokens_big)


if __name__ == "__main__":
    main()
