"""The control plane under load (issue 16, item 2).

    .venv/bin/python benchmarks/control_plane/run.py \\
        --database-url postgres://postgres@127.0.0.1:5432/specpact_bench_data \\
        --small-database-url postgres://postgres@127.0.0.1:5432/specpact_bench_data_small

Starts gunicorn (2 sync workers, DEBUG off) on loopback against a database filled by
`benchmarks/datagen/run.py`, logs in through the login form and issues itself an admin
token (`manage.py createtoken`), then drives 1, 16 and 64 closed-loop clients against each
page and API endpoint, at most `--duration` seconds (and `--max-requests`) a cell. A level
is skipped once a lower one had client timeouts; those count as errors. Prints a table
(p50/p95/p99 ms, requests/s, errors, CPU ms per request) and writes JSON to `--out`.
Queries per request are counted apart (`probe.py`), at the small and the full scale.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _probe(env: dict[str, str], access: Any) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.control_plane.probe",
            "--username",
            access.username,
            "--token",
            access.token,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the probe failed: {done.stderr.strip()[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


# Issue 26, point 1: server CPU per request at most this multiple of the floor's (the
# session page floor for pages, the token API floor for the API), at the same client level.
# None: measured, no target (the floors themselves, the diff, one release's warm page).
FLOOR_TARGETS: dict[str, float | None] = {
    "page: floor": None,
    "api: floor": None,
    "page: diff": None,
    "page: release with charts": None,
    "page: releases, distinct (cold)": 6.0,
}
DEFAULT_TARGET = 3.0


def _floor_of(endpoint: str) -> str:
    return "page: floor" if endpoint.startswith("page") else "api: floor"


def with_floor_ratio(summary: dict[str, Any], floors: dict[tuple[str, int], float]) -> dict[str, Any]:
    """Adds `x_floor` (server CPU per request ÷ its floor's at the same client level), the
    target and whether it is met; None where either CPU figure is missing."""
    target = FLOOR_TARGETS.get(summary["endpoint"], DEFAULT_TARGET)
    floor = floors.get((_floor_of(summary["endpoint"]), summary["clients"]))
    cpu = summary.get("server_cpu_ms_per_request")
    ratio = round(cpu / floor, 2) if cpu is not None and floor else None
    summary["x_floor"] = ratio
    summary["floor_target"] = target
    summary["floor_target_met"] = None if ratio is None or target is None else ratio <= target
    return summary


def _fresh(
    name: str, path: str, clients: int, rotation: list[str], used: dict[str, int], share: int = 0
) -> Any:
    """A cell; on a rotating endpoint, with the paths no earlier cell requested (at most
    `share` of them, so that a fast low level leaves some to the levels after it)."""
    from benchmarks.control_plane.load import Cell

    start = used.get(name, 0)
    cell = Cell(name, path, clients, paths=rotation[start : start + share if share else None])
    if rotation and not cell.paths:
        cell.skipped = "no unrequested objects left"
    return cell


def _spent(cell: Any, used: dict[str, int]) -> None:
    if cell.paths:
        used[cell.endpoint] = used.get(cell.endpoint, 0) + cell.sent


def _target_words(s: dict[str, Any]) -> str:
    if s.get("floor_target") is None or s.get("floor_target_met") is None:
        return ""
    return f"{'met' if s['floor_target_met'] else 'MISSED'} ≤{s['floor_target']:g}×"


def _row(s: dict[str, Any]) -> str:
    def f(v: Any) -> str:
        return "-" if v is None else f"{v:,.1f}" if isinstance(v, float) else str(v)

    if s["skipped"]:
        return f"{s['endpoint']:<28}{s['clients']:>4}  skipped: {s['skipped']}"
    return (
        f"{s['endpoint']:<28}{s['clients']:>4}{s['completed']:>7}{f(s['p50_ms']):>10}{f(s['p95_ms']):>10}"
        f"{f(s['p99_ms']):>10}{f(s['requests_per_s']):>9}{s['errors']:>7}{f(s['server_cpu_ms_per_request']):>9}"
        f"{s['load_average_1m']:>6.1f}{f(s.get('x_floor')):>8}  {_target_words(s)}"
    )


HEADER = (
    f"{'endpoint':<28}{'cli':>4}{'n':>7}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'req/s':>9}{'errors':>7}"
    f"{'cpu ms':>9}{'load':>6}{'×floor':>8}  target"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", required=True, help="the generated full-scale database")
    parser.add_argument("--small-database-url", help="the small scale, for queries per request in both")
    parser.add_argument("--clients", default="1,16,64")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of load per cell")
    parser.add_argument("--max-requests", type=int, default=3000, help="per cell")
    parser.add_argument("--timeout", type=float, default=30.0, help="client timeout per request, seconds")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--only", default="", help="endpoints whose name contains this")
    parser.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE", help="extra server setting"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "control_plane.json")
    parser.add_argument(
        "--scale",
        default="full",
        help="the generated scale's name, recorded in the report (x10: also compared with --compare-with)",
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        help="today's report: printed beside this one, ratio by ratio (benchmarks/control_plane/compare.py)",
    )
    args = parser.parse_args(argv)
    sys.path[0] = str(ROOT)  # this folder's modules must not shadow anything; the repository's must be found

    from benchmarks.control_plane.load import run_cell
    from benchmarks.control_plane.server import (
        PROXY_HEADERS,
        create_access,
        environment,
        gunicorn,
        login,
        manage,
        server_cpu_s,
        wait_idle,
    )

    extra = dict(item.split("=", 1) for item in args.env)
    levels = [int(c) for c in args.clients.split(",")]
    report: dict[str, Any] = {
        "scale": args.scale,
        "machine": {"cpus": os.cpu_count(), "cpu": _cpu_model(), "python": platform.python_version()},
        "settings": {
            "workers": args.workers,
            "worker_class": "sync",
            "duration_s": args.duration,
            "max_requests": args.max_requests,
            "timeout_s": args.timeout,
            "clients": levels,
            "env": extra,
        },
        "cells": [],
    }
    with tempfile.TemporaryDirectory(prefix="specpact-bench-") as var:
        env = environment(args.database_url, Path(var), extra)
        manage(env, "collectstatic", "--noinput", "-v", "0")
        access = create_access(env)
        print("counting queries per request (full scale)…", flush=True)
        full = _probe(env, access)
        report["sizes"] = {"full": full["sizes"]}
        queries: dict[str, dict[str, Any]] = {k: {"full": v} for k, v in full["queries"].items()}
        if args.small_database_url:
            small_env = environment(args.small_database_url, Path(var), extra)
            small = _probe(small_env, create_access(small_env))
            report["sizes"]["small"] = small["sizes"]
            for k, v in small["queries"].items():
                queries.setdefault(k, {})["small"] = v
        report["queries"] = queries
        # The floors are always measured (first): the ratios need them.
        endpoints = {
            k: v for k, v in full["endpoints"].items() if args.only in k or k in ("page: floor", "api: floor")
        }
        rotations: dict[str, list[str]] = full.get("rotations", {})
        used: dict[str, int] = {}  # per rotating endpoint, paths already requested
        floors: dict[tuple[str, int], float] = {}
        report["route"] = full.get("route_versions")
        with gunicorn(env, workers=args.workers, timeout_s=max(120, int(args.timeout) * 4)) as server:
            cookie = login(server.base_url, access)
            print(HEADER, flush=True)
            for name, path in endpoints.items():
                auth = (
                    {"Cookie": cookie}
                    if name.startswith("page")
                    else {"Authorization": f"Token {access.token}"}
                )
                headers = {**PROXY_HEADERS, **auth}
                rotation = rotations.get(name, [])

                # Warm-up, unmeasured: one request per worker (imports, first connection).
                for _ in range(args.workers):
                    warm = _fresh(name, path, 1, rotation, used)
                    if warm.skipped:
                        break
                    run_cell(
                        server.base_url,
                        warm,
                        headers,
                        duration_s=600,
                        max_requests=1,
                        timeout_s=max(120.0, args.timeout),
                    )
                    _spent(warm, used)
                timed_out = False
                for clients in levels:
                    # Each level an equal share of the objects left after the warm-up.
                    share = (len(rotation) - args.workers) // len(levels)
                    cell = _fresh(name, path, clients, rotation, used, share)
                    if timed_out:
                        cell.skipped = "a lower level had client timeouts"
                    elif not cell.skipped:
                        before = server_cpu_s(server)
                        run_cell(
                            server.base_url,
                            cell,
                            headers,
                            duration_s=args.duration,
                            max_requests=args.max_requests,
                            timeout_s=args.timeout,
                        )
                        after = server_cpu_s(server)
                        cell.server_cpu_s = (
                            after - before if before is not None and after is not None else None
                        )
                        _spent(cell, used)
                        wait_idle(server, args.database_url)
                        timed_out = cell.errors.get("timeout", 0) > 0
                    summary = cell.summary()
                    if name in ("page: floor", "api: floor") and summary["server_cpu_ms_per_request"]:
                        floors[(name, clients)] = summary["server_cpu_ms_per_request"]
                    summary = with_floor_ratio(summary, floors)
                    report["cells"].append(summary)
                    print(_row(summary), flush=True)
    _print_queries(queries)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten to {args.out}")
    if args.compare_with is not None:
        from benchmarks.control_plane.compare import print_comparison

        print_comparison(args.compare_with, args.out)
    return 0


def _print_queries(queries: dict[str, dict[str, Any]]) -> None:
    print(f"\n{'queries per request':<28}{'small':>8}{'full':>8}{'status':>8}{'bytes (full)':>14}")
    for name, by_scale in queries.items():
        small = by_scale.get("small", {}).get("queries", "-")
        full = by_scale.get("full", {})
        print(
            f"{name:<28}{small!s:>8}{full.get('queries', '-')!s:>8}{full.get('status', '-')!s:>8}"
            f"{full.get('bytes', 0):>14,}"
        )


if __name__ == "__main__":
    sys.exit(main())
