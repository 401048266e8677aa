"""``specpact-worker bench``: benchmark any OpenAI-compatible server by hand.

    specpact-worker bench --base-url http://127.0.0.1:8000 --model M --concurrency 1,16,256 \\
        --requests 200 --max-tokens 128 [--rate 2,4] [--workload LANE|FILE.jsonl] \\
        [--api completions|chat] --out result.json

A live progress line goes to stderr, a summary table to stdout, the full result (one
entry per level under ``levels``, per-request records under ``requests``, result schema 2:
chunk offsets in whole microseconds) to ``--out`` as compact JSON (an indented file of a
large run is several times the size; `python -m json.tool` indents it).
Exit codes: 0 done, 1 every request failed, 2 invalid input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from time import perf_counter
from typing import Any, get_args

from pydantic import ValidationError

from worker.harness.plan import ServerKind
from worker.harness.results.levels import LevelResult, Quantiles
from worker.harness.results.result import BenchResult
from worker.harness.results.speculation import SpeculationReported


def _numbers(kind: type, text: str) -> list[Any]:
    try:
        values = [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one number")
    return values


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("bench", help="benchmark an OpenAI-compatible server (like `vllm bench serve`)")
    p.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8000")
    p.add_argument("--model", required=True)
    levels = p.add_mutually_exclusive_group()
    levels.add_argument(
        "--concurrency", type=lambda t: _numbers(int, t), help="closed-loop levels, e.g. 1,16,256"
    )
    levels.add_argument("--rate", type=lambda t: _numbers(float, t), help="open-loop request rates (req/s)")
    p.add_argument(
        "--arrival",
        choices=["poisson", "gamma", "trace"],
        default="poisson",
        help="open-loop arrivals; trace: the workload's own arrival_s, scaled to each --rate",
    )
    p.add_argument("--gamma-shape", type=float, default=1.0)
    p.add_argument("--requests", type=int, required=True, help="measured requests per level")
    p.add_argument("--max-tokens", type=int, help="default: the lane's")
    p.add_argument(
        "--workload", default="chat", help="a lane (chat, summarization, extraction, ...) or FILE.jsonl"
    )
    p.add_argument("--api", choices=["completions", "chat"], default="completions")
    p.add_argument(
        "--server",
        choices=get_args(ServerKind),
        default="generic",
        help="the engine behind the URL: decides which speculation metrics are read",
    )
    p.add_argument("--api-key")
    p.add_argument("--temperature", type=float, help="default: the lane's sampling settings")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warmup", type=int, default=2, help="warm-up requests, not measured")
    p.add_argument("--time-budget", type=float, help="seconds for the whole run")
    p.add_argument("--request-timeout", type=float, default=600)
    p.add_argument("--stall-timeout", type=float, default=60)
    p.add_argument("--ignore-eos", action="store_true")
    p.add_argument(
        "--tokenizer", help="local tokenizer folder, to count tokens when the server sends no usage"
    )
    p.add_argument("--slo-ttft-ms", type=float)
    p.add_argument("--slo-tpot-ms", type=float)
    p.add_argument("--slo-e2e-ms", type=float)
    p.add_argument("--out", required=True, type=Path)
    p.set_defaults(handler=bench_command)


def _plan_dict(args: argparse.Namespace) -> dict[str, Any]:
    from worker.workloads import load_workload

    workload = load_workload(args.workload)
    sampling = workload.sampling.model_dump() if workload.sampling else {}
    if args.temperature is not None:
        sampling["temperature"] = args.temperature
    slo = {"ttft_ms": args.slo_ttft_ms, "tpot_ms": args.slo_tpot_ms, "e2e_ms": args.slo_e2e_ms}
    return {
        "engine": {
            "kind": "openai",
            "base_url": args.base_url,
            "model": args.model,
            "api": args.api,
            "server": args.server,
            "api_key": args.api_key,
        },
        "workload": args.workload,
        "concurrency": args.concurrency if args.rate is None else None,
        "rates": args.rate,
        "arrival": args.arrival,
        "gamma_shape": args.gamma_shape,
        "requests_per_level": args.requests,
        "max_tokens": args.max_tokens or workload.max_tokens or 128,
        "ignore_eos": args.ignore_eos,
        "sampling": sampling or None,
        "seed": args.seed,
        "warmup_requests": args.warmup,
        "time_budget_s": args.time_budget,
        "request_timeout_s": args.request_timeout,
        "stall_timeout_s": args.stall_timeout,
        "slo": slo if any(v is not None for v in slo.values()) else None,
        "tokenizer": args.tokenizer,
    }


def bench_command(args: argparse.Namespace) -> int:
    from worker.harness.plan import BenchPlan
    from worker.harness.runner import run_benchmark
    from worker.workloads import WorkloadError

    if args.concurrency is None and args.rate is None:
        args.concurrency = [1]
    try:
        plan = BenchPlan.model_validate(_plan_dict(args))
    except WorkloadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        for err in exc.errors():
            print(f"error: {'.'.join(map(str, err['loc'])) or 'plan'}: {err['msg']}", file=sys.stderr)
        return 2
    started = perf_counter()

    def progress(p: Any) -> None:
        elapsed = perf_counter() - started
        sys.stderr.write(
            f"\r[{p.label}] {p.done}/{p.total} requests, {p.errors_hint} failed, {elapsed:6.1f} s "
        )
        sys.stderr.flush()

    result = run_benchmark(plan, progress=progress)
    sys.stderr.write("\n")
    args.out.write_text(
        json.dumps(result.model_dump(mode="json"), separators=(",", ":")) + "\n", encoding="utf-8"
    )
    print(summary_table(result))
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"wrote {args.out}", file=sys.stderr)
    all_failed = all(level.completed == 0 for level in result.levels)
    return 1 if all_failed else 0


def _q(q: Quantiles | None, key: str) -> str:
    return f"{getattr(q, key):.1f}" if q is not None else "-"


def _row(level: LevelResult) -> list[str]:
    spec = level.speculation
    rate = spec.acceptance_rate if isinstance(spec, SpeculationReported) else None
    accept = f"{rate:.2f}" if rate is not None else "-"
    tpc = level.tokens_per_chunk
    return [
        f"c={level.concurrency}" if level.concurrency is not None else f"r={level.rate:g}",
        f"{level.completed}/{level.requests_total}",
        f"{level.error_rate:.0%}",
        _q(level.ttft_ms, "p50"),
        _q(level.ttft_ms, "p99"),
        _q(level.tpot_ms, "p50"),
        _q(level.tpot_ms, "p99"),
        _q(level.itl_chunk_ms, "p50"),
        f"{tpc.mean:.2f}" if tpc else "-",
        _q(level.e2e_ms, "p50"),
        f"{level.output_tokens_per_s:.1f}",
        f"{level.requests_per_s:.2f}",
        f"{level.goodput_requests_per_s:.2f}" if level.goodput_requests_per_s is not None else "-",
        accept,
    ]


def summary_table(result: BenchResult) -> str:
    header = [
        "level", "ok", "err", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "chunk gap p50",
        "tok/chunk", "E2E p50", "out tok/s", "req/s", "goodput", "accept",
    ]  # fmt: skip
    rows = [header, *(_row(level) for level in result.levels)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append(
        "(latencies in ms; TPOT is per token, the chunk gap is not: a chunk may carry several tokens)"
    )
    return "\n".join(lines)
