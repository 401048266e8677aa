"""How much the harness costs per token, and how many streams it measures accurately here.

    .venv/bin/python benchmarks/harness_overhead.py [--levels 16,64,256,512,1024] [--json out.json]

1. Overhead: the engine emulator (tests/support/engine_emulator, its own process)
   streams one token per chunk with no delay; the harness's CPU time (process time: the
   live loop and the parsing afterwards) divided by the tokens it received.
2. Accuracy vs. load: the reference server's schedule (TTFT 100 ms + 0.2 ms per active
   stream, a chunk every 20 ms + 0.1 ms per stream, 1,3,2,4 tokens per chunk); the
   harness's TTFT and TPOT medians against the server's own record of what it did. A level
   is accurate when both are within 2% (or 1 ms). Prints the most streams that stayed so.
Numbers depend on the machine and on what else runs on it: rerun before quoting them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from worker.harness.loadgen import Job, LoadGenerator, Progress  # noqa: E402
from worker.harness.plan import BenchPlan  # noqa: E402
from worker.harness.runner import run_benchmark  # noqa: E402
from worker.workloads import load_workload  # noqa: E402

SCHEDULE = [
    "--ttft-ms",
    "100",
    "--ttft-per-stream-ms",
    "0.2",
    "--step-ms",
    "20",
    "--step-per-stream-ms",
    "0.1",
]


class Server:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            # The requests below name the model `ref`: the emulator must serve that name.
            [
                sys.executable,
                "-m",
                "tests.support.engine_emulator",
                "--port",
                "0",
                "--served-model-name",
                "ref",
                *args,
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline().split()[1])}"

    def truth(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "/truth") as resp:  # noqa: S310 (our own http URL)
            return {t["prompt"]: t for t in json.load(resp)}

    def reset(self) -> None:
        request = urllib.request.Request(self.url + "/truth/reset", method="POST")  # noqa: S310
        urllib.request.urlopen(request).close()  # noqa: S310

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def _workload(folder: Path, n: int, tag: str) -> Path:
    path = folder / f"{tag}.jsonl"
    with path.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"{tag}-{i}", "prompt": f"{tag} prompt number {i}"}) + "\n")
    return path


def _plan(url: str, workload: Path, concurrency: int, requests: int, max_tokens: int) -> BenchPlan:
    return BenchPlan.model_validate(
        {
            "engine": {"kind": "openai", "base_url": url, "model": "ref", "server": "vllm"},
            "workload": str(workload),
            "concurrency": [concurrency],
            "requests_per_level": requests,
            "max_tokens": max_tokens,
            "warmup_requests": 2,
            "stall_timeout_s": 120,
        }
    )


def overhead(folder: Path) -> dict[str, float]:
    server = Server("--ttft-ms", "0", "--step-ms", "0", "--pattern", "1", "--chunks", "256")
    try:
        plan = _plan(server.url, _workload(folder, 80, "overhead"), 16, 64, 256)
        cpu, wall = time.process_time(), time.perf_counter()
        result = run_benchmark(plan)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        server.stop()
    level = result.levels[0]
    tokens = level.output_tokens + 2 * 256  # the warm-up requests were received too
    return {
        "tokens": tokens,
        "harness_cpu_s": cpu,
        "cpu_us_per_token": cpu / tokens * 1e6,
        "tokens_per_s_received": level.output_tokens_per_s,
        "wall_s": wall,
    }


def accuracy(folder: Path, levels: list[int]) -> list[dict[str, Any]]:
    server = Server(*SCHEDULE)
    rows = []
    try:
        for c in levels:
            requests = max(64, 2 * c)
            workload = _workload(folder, requests + 2, f"c{c}")
            texts = {p.id: p.text for p in load_workload(str(workload)).prompts}
            server.reset()
            level = run_benchmark(_plan(server.url, workload, c, requests, 64)).levels[0]
            truth = server.truth()
            true_ttft, true_tpot, exact_chunks = [], [], 0
            for r in level.requests:
                t = truth.get(texts[r.prompt_id])
                if t is None or r.error is not None:
                    continue
                w, n = t["writes"], sum(t["chunk_tokens"])
                true_ttft.append((w[0] - t["recv"]) * 1000)
                true_tpot.append((w[-1] - w[0]) * 1000 / (n - 1))
                exact_chunks += r.chunk_tokens == t["chunk_tokens"]
            assert level.ttft_ms and level.tpot_ms
            tt, tp = statistics.median(true_ttft), statistics.median(true_tpot)
            ok = all(
                abs(m - t) <= max(0.02 * t, 1.0)
                for m, t in ((level.ttft_ms.p50, tt), (level.tpot_ms.p50, tp))
            )
            rows.append(
                {
                    "concurrency": c,
                    "requests": requests,
                    "errors": level.errors,
                    "ttft_p50_ms": level.ttft_ms.p50,
                    "ttft_true_ms": tt,
                    "tpot_p50_ms": level.tpot_ms.p50,
                    "tpot_true_ms": tp,
                    "chunks_exact": f"{exact_chunks}/{level.completed}",
                    "accurate": ok and level.errors == 0,
                }
            )
            row = rows[-1]
            print(
                f"c={c:5d}  TTFT p50 {row['ttft_p50_ms']:8.2f} (truth {tt:8.2f})  "
                f"TPOT p50 {row['tpot_p50_ms']:7.3f} (truth {tp:7.3f})  chunks exact {row['chunks_exact']}  "
                f"errors {row['errors']}  {'ok' if row['accurate'] else 'OFF'}",
                flush=True,
            )
    finally:
        server.stop()
    return rows


def where_the_ttft_error_is(concurrency: int) -> dict[str, float]:
    """Splits the TTFT error at one level into its two parts, from absolute times on the
    shared clock: send -> server received (the reference server picking the request up:
    kernel + its own event loop) and server wrote -> harness read (the harness's lag)."""
    server = Server(*SCHEDULE)
    try:
        gen_progress = Progress()
        jobs = [
            Job(f"d{i}", json.dumps({"model": "ref", "prompt": f"split {i}", "max_tokens": 64,
                                     "stream": True, "return_token_ids": True}).encode())
            for i in range(2 * concurrency)
        ]  # fmt: skip

        async def go() -> list[Any]:
            async with LoadGenerator(
                base_url=server.url,
                api="completions",
                api_key=None,
                request_timeout_s=300,
                stall_timeout_s=120,
                progress=gen_progress,
            ) as g:
                return await g.closed_loop(jobs, concurrency, None)  # fmt: skip

        exchanges = asyncio.run(go())
        truth = server.truth()
    finally:
        server.stop()
    pickup, read_lag = [], []
    for ex in exchanges:
        t = truth[f"split {ex.prompt_id[1:]}"]
        first_read = next(ts for ts, data in ex.reads if b'"text"' in data)
        pickup.append((t["recv"] - ex.sent) * 1000)
        read_lag.append((first_read - t["writes"][0]) * 1000)
    return {
        "concurrency": concurrency,
        "server_pickup_ms_p50": statistics.median(pickup),
        "harness_read_lag_ms_p50": statistics.median(read_lag),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="16,64,256,512,1024")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        cost = overhead(Path(tmp))
        print(
            f"harness overhead: {cost['cpu_us_per_token']:.1f} us CPU per token "
            f"({cost['tokens']} tokens, {cost['harness_cpu_s']:.2f} s CPU; "
            f"{cost['tokens_per_s_received']:.0f} tokens/s received from a zero-delay server)",
            flush=True,
        )
        rows = accuracy(Path(tmp), [int(x) for x in args.levels.split(",")])
        split = [where_the_ttft_error_is(c) for c in (256, max(int(x) for x in args.levels.split(",")))]
        for sp in split:
            print(
                f"c={sp['concurrency']}: TTFT error = server pickup p50 {sp['server_pickup_ms_p50']:.2f} ms "
                f"+ harness read lag p50 {sp['harness_read_lag_ms_p50']:.2f} ms"
            )
    accurate = [r["concurrency"] for r in rows if r["accurate"]]
    print(f"most concurrent streams measured within 2% / 1 ms: {max(accurate) if accurate else 'none'}")
    if args.json:
        args.json.write_text(
            json.dumps({"overhead": cost, "accuracy": rows, "ttft_error_split": split}, indent=1)
        )


if __name__ == "__main__":
    main()
