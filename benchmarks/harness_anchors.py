"""The harness against its anchors in one run (issue 16, item 3), and the worker's memory.

    .venv/bin/python benchmarks/harness_anchors.py [--levels 1,16,64,256,1024]
        [--guidellm PATH/TO/guidellm] [--memory-streams 4096] [--json out.json]

The reference server is the engine emulator (tests/support/engine_emulator, its own
process, vLLM-shaped): TTFT 100 ms + 0.2 ms per active stream, a step every 20 ms + 0.1 ms
per stream, 1,3,2,4 tokens a chunk (what speculation streams), 64 tokens a request. Its
`/truth` records, per request, when it received the request and when it wrote each chunk
(perf_counter, the machine's monotonic clock). Three clients drive it closed loop at each
level, one after the other, the server's record reset between them:

- `bare`: a bare asyncio SSE reader (aiohttp; no retries, no parsing beyond finding each
  `data:` line and its `token_ids`), the floor of what any client can measure here;
- `harness`: the project's harness (`worker.harness.runner.run_benchmark`);
- `guidellm`: GuideLLM (PyPI `guidellm`, its own venv made by `make bench`), offline with
  a JSONL of prompts, `--profile concurrent`.

Per client and level: TTFT and TPOT error (the client's median minus the server's median,
ms; TPOT = (last chunk - first chunk) / (tokens - 1), per token), the concurrency the server
saw (time-weighted mean and peak of requests in flight, from its own record), requests/s
(completed / the server's span from first receipt to last write), and requests dropped
(asked for minus completed whole). Targets: the harness within 1 ms of the bare reader's
error at every level, >= 2x GuideLLM's requests/s, nothing dropped.

Client capacity: the same three against a server with no delays (`--capacity-streams`),
requests/s: what the >= 2x GuideLLM target is about (a paced server gives every client its
own rate).

`--memory-streams N`: the harness alone at N streams in a child process against a fast
schedule, and that process's peak RSS (ru_maxrss): the worker's memory at that load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import aiohttp  # noqa: E402

from benchmarks.harness_overhead import Server, _plan, _workload  # noqa: E402
from worker.harness.runner import run_benchmark  # noqa: E402
from worker.workloads import load_workload  # noqa: E402

MAX_TOKENS = 64
MODEL = "ref"
SCHEDULE = [
    *("--served-model-name", MODEL),
    *("--ttft-ms", "100", "--ttft-per-stream-ms", "0.2"),
    *("--step-ms", "20", "--step-per-stream-ms", "0.1"),
    *("--pattern", "1,3,2,4", "--output-tokens", str(MAX_TOKENS)),
]


def _requests_for(concurrency: int) -> int:
    return max(64, 2 * concurrency)


# The bare reader ------------------------------------------------------------------------


async def _bare_one(session: aiohttp.ClientSession, url: str, prompt: str) -> dict[str, Any] | None:
    body = {
        "model": MODEL,
        "prompt": prompt,
        "max_tokens": MAX_TOKENS,
        "stream": True,
        "return_token_ids": True,  # vLLM's per-chunk token ids (what the server offers)
    }
    sent = time.perf_counter()
    first: float | None = None
    last = sent
    tokens = 0
    async with session.post(url + "/v1/completions", json=body) as resp:
        if resp.status != 200:
            return None
        async for line in resp.content:
            if not line.startswith(b"data: ") or line.startswith(b"data: [DONE]"):
                continue
            now = time.perf_counter()
            choices = json.loads(line[6:]).get("choices") or []
            n = sum(len(c.get("token_ids") or []) for c in choices)
            if n:
                first = first if first is not None else now
                last, tokens = now, tokens + n
    if first is None or tokens < 2:
        return None
    return {"ttft_ms": (first - sent) * 1000, "tpot_ms": (last - first) * 1000 / (tokens - 1)}


async def _bare(url: str, prompts: list[str], concurrency: int) -> tuple[list[dict[str, Any]], float]:
    queue = list(reversed(prompts))
    out: list[dict[str, Any]] = []
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def lane() -> None:
            while queue:
                got = await _bare_one(session, url, queue.pop())
                if got is not None:
                    out.append(got)

        start = time.perf_counter()
        await asyncio.gather(*(lane() for _ in range(concurrency)))
    return out, time.perf_counter() - start


def run_bare(server: Server, prompts: list[str], concurrency: int) -> dict[str, Any]:
    rows, _ = asyncio.run(_bare(server.url, prompts, concurrency))
    return {
        "ttft": [r["ttft_ms"] for r in rows],
        "tpot": [r["tpot_ms"] for r in rows],
        "completed": len(rows),
    }


# The harness ----------------------------------------------------------------------------


def run_harness(server: Server, workload: Path, concurrency: int, requests: int) -> dict[str, Any]:
    plan = _plan(server.url, workload, concurrency, requests, MAX_TOKENS).model_copy(
        update={"warmup_requests": 0}
    )
    level = run_benchmark(plan).levels[0]
    ok = [r for r in level.requests if r.error is None and r.ttft_ms is not None and r.tpot_ms is not None]
    return {"ttft": [r.ttft_ms for r in ok], "tpot": [r.tpot_ms for r in ok], "completed": len(ok)}


# GuideLLM -------------------------------------------------------------------------------


def run_guidellm(
    exe: str, server: Server, workload: Path, concurrency: int, requests: int, tmp: Path
) -> dict[str, Any]:
    """GuideLLM 0.8's CLI (`guidellm run`, each option a `kind=…,key=value` config: the
    schemas under guidellm/schemas/ of the installed package): the OpenAI completions
    endpoint, a concurrent profile of `streams`, a request budget, a JSON file of prompts,
    the report as JSON. No tokenizer: token counts come from the server's usage."""
    out = tmp / f"guidellm-c{concurrency}.json"
    prompts = tmp / f"guidellm-c{concurrency}.jsonl"
    with prompts.open("w") as fh:
        for p in load_workload(str(workload)).prompts[:requests]:
            fh.write(json.dumps({"prompt": p.text, "output_tokens_count": MAX_TOKENS}) + "\n")
    cmd = [
        exe, "run",
        "--backend", f"kind=openai_http,target={server.url},model={MODEL},request_format=/v1/completions",
        "--profile", f"kind=concurrent,streams={concurrency}",
        "--constraint", f"kind=max_requests,count={requests}",
        "--data", f"kind=json_file,path={prompts}",
        "--output", f"kind=json,path={out}",
        "--disable-console-interactive",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, check=False, cwd=tmp)
    if done.returncode != 0 or not out.exists():
        return {"ttft": [], "tpot": [], "completed": 0, "failed": (done.stderr or done.stdout)[-800:]}
    return _guidellm_requests(json.loads(out.read_text()))


def _guidellm_requests(report: dict[str, Any]) -> dict[str, Any]:
    """The successful requests of the report's benchmark as GuideLLM measured them. Its
    `time_per_output_token_ms` is latency / output tokens (TTFT included); its
    `inter_token_latency_ms` is (latency - TTFT) / (tokens - 1), the per-token TPOT the
    harness and the bare reader report, so that is the one compared."""
    ttft, tpot = [], []
    for bench in report.get("benchmarks") or []:
        for r in (bench.get("requests") or {}).get("successful") or []:
            t, p = r.get("time_to_first_token_ms"), r.get("inter_token_latency_ms")
            if t is not None and p is not None:
                ttft.append(float(t))
                tpot.append(float(p))
    return {"ttft": ttft, "tpot": tpot, "completed": len(ttft)}


# The server's truth ---------------------------------------------------------------------


def _truth_figures(truth: list[dict[str, Any]]) -> dict[str, Any]:
    whole = [t for t in truth if t.get("writes") and sum(t["chunk_tokens"]) >= 2]
    ttft = [(t["writes"][0] - t["recv"]) * 1000 for t in whole]
    tpot = [(t["writes"][-1] - t["writes"][0]) * 1000 / (sum(t["chunk_tokens"]) - 1) for t in whole]
    spans = sorted((t["recv"], t["writes"][-1]) for t in whole)
    if not spans:
        return {"ttft": None, "tpot": None, "mean_in_flight": 0.0, "peak_in_flight": 0, "span_s": 0.0}
    edges = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    level, peak, area, prev = 0, 0, 0.0, edges[0][0]
    for t, step in edges:
        area += level * (t - prev)
        level, prev = level + step, t
        peak = max(peak, level)
    span = edges[-1][0] - edges[0][0]
    return {
        "ttft": statistics.median(ttft),
        "tpot": statistics.median(tpot),
        "mean_in_flight": area / span if span else 0.0,
        "peak_in_flight": peak,
        "span_s": span,
        "whole": len(whole),
    }


def measure(
    client: str, got: dict[str, Any], truth: list[dict[str, Any]], asked: int, c: int
) -> dict[str, Any]:
    true = _truth_figures(truth)
    row: dict[str, Any] = {"client": client, "concurrency": c, "asked": asked, "completed": got["completed"]}
    row["dropped"] = asked - got["completed"]
    if got["ttft"] and true["ttft"] is not None:
        row["ttft_err_ms"] = statistics.median(got["ttft"]) - true["ttft"]
        row["tpot_err_ms"] = statistics.median(got["tpot"]) - true["tpot"]
    row["mean_in_flight"] = round(true["mean_in_flight"], 1)
    row["peak_in_flight"] = true["peak_in_flight"]
    row["requests_per_s"] = got["completed"] / true["span_s"] if true["span_s"] else None
    row["load_1m"] = os.getloadavg()[0]
    if "failed" in got:
        row["failed"] = got["failed"]
    return row


def _fmt(v: Any, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def print_row(r: dict[str, Any]) -> None:
    print(
        f"{r['client']:<9}{r['concurrency']:>6}{r['completed']:>7}/{r['asked']:<6}"
        f"{_fmt(r.get('ttft_err_ms'), '+9.2f')}{_fmt(r.get('tpot_err_ms'), '+9.3f')}"
        f"{r['mean_in_flight']:>9.1f}{r['peak_in_flight']:>7}{_fmt(r['requests_per_s'], '9.1f')}"
        f"{r['dropped']:>8}{r['load_1m']:>6.1f}",
        flush=True,
    )
    if r.get("failed"):
        last = r["failed"].strip().splitlines()[-1] if r["failed"].strip() else "?"
        print(f"         guidellm failed: {last}")


HEADER = (
    f"{'client':<9}{'c':>6}{'done/asked':>14}{'TTFT err':>9}{'TPOT err':>9}{'mean c':>9}{'peak':>7}"
    f"{'req/s':>9}{'dropped':>8}{'load':>6}"
)


# A server with no delays: how many requests/s each client itself can drive (the >= 2x
# GuideLLM target is about the client, which a paced server would hide: there every
# client gets the server's rate).
FLAT_OUT = ["--served-model-name", MODEL, "--ttft-ms", "0", "--step-ms", "0", "--pattern", "1,3,2,4",
            "--output-tokens", str(MAX_TOKENS)]  # fmt: skip


def anchors(
    levels: list[int], guidellm: str | None, tmp: Path, schedule: list[str] = SCHEDULE
) -> list[dict[str, Any]]:
    server = Server(*schedule)
    rows: list[dict[str, Any]] = []
    print(HEADER, flush=True)
    try:
        for c in levels:
            asked = _requests_for(c)
            workload = _workload(tmp, asked, f"a{c}")
            prompts = [p.text for p in load_workload(str(workload)).prompts]
            clients = ["bare", "harness", *(["guidellm"] if guidellm else [])]
            for name in clients:
                server.reset()
                if name == "bare":
                    got = run_bare(server, prompts, c)
                elif name == "harness":
                    got = run_harness(server, workload, c, asked)
                else:
                    got = run_guidellm(str(guidellm), server, workload, c, asked, tmp)
                rows.append(measure(name, got, list(server.truth().values()), asked, c))
                print_row(rows[-1])
    finally:
        server.stop()
    return rows


def worker_memory(streams: int) -> dict[str, Any]:
    """The harness at `streams` in a child process (its own ru_maxrss, nothing else's)."""
    code = (
        "import json, resource, sys, tempfile, pathlib\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        "from benchmarks.harness_overhead import Server, _plan, _workload\n"
        "from worker.harness.runner import run_benchmark\n"
        "n = int(sys.argv[1])\n"
        "server = Server('--served-model-name', 'ref', '--ttft-ms', '50', '--step-ms', '20',\n"
        "                '--pattern', '1,3,2,4',\n"
        "                '--output-tokens', '64')\n"
        "try:\n"
        "    with tempfile.TemporaryDirectory() as tmp:\n"
        "        w = _workload(pathlib.Path(tmp), n, 'mem')\n"
        "        plan = _plan(server.url, w, n, n, 64).model_copy(update={'warmup_requests': 0})\n"
        "        level = run_benchmark(plan).levels[0]\n"
        "finally:\n"
        "    server.stop()\n"
        "print(json.dumps({'completed': level.completed, 'errors': level.errors,\n"
        "    'peak_rss_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(streams)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        return {"streams": streams, "failed": done.stderr[-800:]}
    return {
        "streams": streams,
        **json.loads(done.stdout.strip().splitlines()[-1]),
        "load_1m": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="1,16,64,256,1024")
    parser.add_argument("--guidellm", help="the guidellm executable (its own venv); omitted: not compared")
    parser.add_argument("--memory-streams", type=int, default=4096, help="0: skip")
    parser.add_argument(
        "--capacity-streams", type=int, default=256, help="streams against the no-delay server"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    found = shutil.which(args.guidellm) if args.guidellm else None
    guidellm = os.path.abspath(found) if found else None
    if args.guidellm and guidellm is None:
        print(f"guidellm not found at {args.guidellm}: compared without it", flush=True)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows = anchors([int(x) for x in args.levels.split(",")], guidellm, Path(tmp))
    report: dict[str, Any] = {"anchors": rows}
    print(f"\nclient capacity: a server with no delays, {args.capacity_streams} streams", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        report["capacity"] = anchors([args.capacity_streams], guidellm, Path(tmp), FLAT_OUT)
    cap = {r["client"]: r.get("requests_per_s") for r in report["capacity"]}
    if cap.get("harness") and cap.get("guidellm"):
        ratio = cap["harness"] / cap["guidellm"]
        print(
            f"harness / GuideLLM requests/s at full speed: {ratio:.2f}x "
            f"({'meets' if ratio >= 2 else 'MISSES'} >= 2x)"
        )
    by = {(r["client"], r["concurrency"]): r for r in rows}
    print("\nharness vs bare reader (error difference, ms) and vs GuideLLM (requests/s ratio):")
    for c in sorted({r["concurrency"] for r in rows}):
        h, b, g = by.get(("harness", c)), by.get(("bare", c)), by.get(("guidellm", c))
        if not (h and b and "ttft_err_ms" in h and "ttft_err_ms" in b):
            continue
        dt, dp = h["ttft_err_ms"] - b["ttft_err_ms"], h["tpot_err_ms"] - b["tpot_err_ms"]
        ratio = h["requests_per_s"] / g["requests_per_s"] if g and g.get("requests_per_s") else None
        # The target is an error no worse than the bare reader's + 1 ms; a harness that reads
        # faster than aiohttp's line iterator (its own HTTP/1.1 reader) comes out below it.
        ok = dt <= 1 and dp <= 1 and h["dropped"] == 0
        close = abs(dt) <= 1 and abs(dp) <= 1
        how = "within 1 ms of" if close else "below" if ok else "MISSES (worse than)"
        print(
            f"c={c:<5} TTFT {dt:+.2f}  TPOT {dp:+.3f}  dropped {h['dropped']}  {how} the bare reader's "
            "error; "
            f"req/s vs GuideLLM {_fmt(ratio, '.2f')}x (paced by the server)"
        )
    if args.memory_streams:
        mem = worker_memory(args.memory_streams)
        report["worker_memory"] = mem
        if "failed" in mem:
            print(f"\nworker at {args.memory_streams} streams: failed: {mem['failed'].strip()[-300:]}")
        else:
            print(
                f"\nworker (harness) at {mem['streams']} streams: peak RSS {mem['peak_rss_mib']:.0f} MiB, "
                f"{mem['completed']} completed, {mem['errors']} errors (load {mem['load_1m']:.1f})"
            )
    report["self_peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
