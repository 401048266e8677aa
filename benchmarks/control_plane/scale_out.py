"""The control plane at 1x and 2x the web processes (issue 26, point 3).

    .venv/bin/python benchmarks/control_plane/scale_out.py \\
        --database-url postgres://postgres@127.0.0.1:5432/specpact_bench_data_small \\
        --env CACHE_URL=redis://127.0.0.1:6379/14 --web-processes 2

The same server, load and objects as `run.py` (its `server`, `load` and `probe` modules):
first one gunicorn (2 sync workers), then `--web-processes` of them at once on as many
ports (standing in for hosts: the same SECRET_KEY, database and cache), the clients'
requests spread over them in turn as a round-robin load balancer would. For each endpoint
and client level: requests/s and p95 at 1x and at Nx, side by side, each with the machine's
1-minute load average when its cell started, and the ratio of the throughputs. The session
is signed in once, on the first server, and used on all of them.

On a machine with fewer cores than the processes want (2 gunicorns x 2 workers plus the
client and PostgreSQL on 2 cores) the ratio measures contention, not capacity: it says
that nothing serialises the processes (a lock, a process-local cache warmed once), not
how far more hosts would go.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# A cell of each endpoint kind the table measures, to keep the run to minutes.
DEFAULT_ONLY = "api: routes,api: runs,api: release detail,page: routes overview,page: audit"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", required=True, help="a database filled by benchmarks/datagen")
    parser.add_argument("--web-processes", type=int, default=2, help="gunicorns at the scaled-out step")
    parser.add_argument("--workers", type=int, default=2, help="sync workers per gunicorn")
    parser.add_argument("--clients", default="16,64")
    parser.add_argument("--duration", type=float, default=8.0, help="seconds of load per cell")
    parser.add_argument("--max-requests", type=int, default=3000, help="per cell")
    parser.add_argument("--timeout", type=float, default=30.0, help="client timeout per request, seconds")
    parser.add_argument(
        "--only", default=DEFAULT_ONLY, help="comma-separated endpoint names (as run.py names them); all: ''"
    )
    parser.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE", help="extra server setting"
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "out" / "control_plane_scale_out.json"
    )
    args = parser.parse_args(argv)
    if args.web_processes < 2:
        parser.error("--web-processes: at least 2 (1 is the baseline it is compared with)")
    sys.path[0] = str(ROOT)  # this folder's modules must not shadow anything; the repository's must be found

    import tempfile

    from benchmarks.control_plane.run import _cpu_model, _probe
    from benchmarks.control_plane.server import create_access, environment, manage

    extra = dict(item.split("=", 1) for item in args.env)
    levels = [int(c) for c in args.clients.split(",")]
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    with tempfile.TemporaryDirectory(prefix="specpact-scale-out-") as var:
        env = environment(args.database_url, Path(var), extra)
        manage(env, "collectstatic", "--noinput", "-v", "0")
        access = create_access(env)
        endpoints = {k: v for k, v in _probe(env, access)["endpoints"].items() if not wanted or k in wanted}
        report: dict[str, Any] = {
            "machine": {"cpu": _cpu_model()},
            "settings": {
                "web_processes": args.web_processes,
                "workers_per_process": args.workers,
                "duration_s": args.duration,
                "clients": levels,
                "env": extra,
            },
            "cells": [],
        }
        for processes in (1, args.web_processes):
            for summary in _measure(env, access, endpoints, processes, levels, args):
                report["cells"].append({"web_processes": processes, **summary})
    _print(report["cells"], args.web_processes)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten to {args.out}")
    return 0


def _measure(
    env: dict[str, str],
    access: Any,
    endpoints: dict[str, str],
    processes: int,
    levels: list[int],
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    from benchmarks.control_plane.load import Cell, run_cell
    from benchmarks.control_plane.server import PROXY_HEADERS, gunicorn, login, server_cpu_s, wait_idle

    print(f"{processes} web process(es) x {args.workers} sync workers…", flush=True)
    out = []
    with ExitStack() as stack:
        timeout_s = max(120, int(args.timeout) * 4)
        servers = [
            stack.enter_context(gunicorn(env, workers=args.workers, timeout_s=timeout_s))
            for _ in range(processes)
        ]
        urls = [s.base_url for s in servers]
        cookie = login(urls[0], access)  # in the database: good on every server
        for name, path in endpoints.items():
            token = {"Authorization": f"Token {access.token}"}
            headers = {**PROXY_HEADERS, **({"Cookie": cookie} if name.startswith("page") else token)}
            for url in urls:  # warm-up, unmeasured: a request per worker of each server
                for _ in range(args.workers):
                    run_cell(url, Cell(name, path, 1), headers, duration_s=600, max_requests=1, timeout_s=120)
            for clients in levels:
                cell = Cell(name, path, clients)
                before = [server_cpu_s(s) for s in servers]
                run_cell(
                    urls,
                    cell,
                    headers,
                    duration_s=args.duration,
                    max_requests=args.max_requests,
                    timeout_s=args.timeout,
                )
                after = [server_cpu_s(s) for s in servers]
                spent = [a - b for a, b in zip(after, before, strict=True) if a is not None and b is not None]
                cell.server_cpu_s = sum(spent) if len(spent) == len(servers) else None
                for server in servers:
                    wait_idle(server, env["DATABASE_URL"])
                out.append(cell.summary())
                print(f"  {name:<26}{clients:>4} {_figure(out[-1])}", flush=True)
    return out


def _figure(s: dict[str, Any]) -> str:
    p95 = "-" if s["p95_ms"] is None else f"{s['p95_ms']:,.0f}"
    return (
        f"{s['requests_per_s']:>8,.1f} req/s  p95 {p95:>7} ms  load {s['load_average_1m']:>4.1f}"
        f"  errors {s['errors']}"
    )


def _print(cells: list[dict[str, Any]], n: int) -> None:
    one = {(c["endpoint"], c["clients"]): c for c in cells if c["web_processes"] == 1}
    many = {(c["endpoint"], c["clients"]): c for c in cells if c["web_processes"] == n}
    print(
        f"\n{'endpoint':<26}{'cli':>4} | {'1x req/s':>9}{'p95 ms':>8}{'load':>6} | "
        f"{f'{n}x req/s':>9}{'p95 ms':>8}{'load':>6} | {'ratio':>6}"
    )
    for key, a in one.items():
        b = many.get(key)
        if b is None:
            continue
        ratio = b["requests_per_s"] / a["requests_per_s"] if a["requests_per_s"] else 0.0
        print(
            f"{key[0]:<26}{key[1]:>4} | {a['requests_per_s']:>9,.1f}{a['p95_ms'] or 0:>8,.0f}"
            f"{a['load_average_1m']:>6.1f} | {b['requests_per_s']:>9,.1f}{b['p95_ms'] or 0:>8,.0f}"
            f"{b['load_average_1m']:>6.1f} | {ratio:>5.2f}x"
        )


if __name__ == "__main__":
    sys.exit(main())
