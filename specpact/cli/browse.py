"""Server commands for pipelines: `diff ROUTE FROM TO`, `releases list` (read-only) and
`releases benchmark RELEASE` (start a waiting release's benchmark on its live endpoints)."""

from __future__ import annotations

import argparse
from typing import Any

from specpact.cli.exit_codes import OK as EXIT_OK
from specpact.cli.online import _client, _gate_words, _guarded, add_server_options, cmd_benchmark
from specpact.cli.output import emit


def register(subparsers: Any) -> None:
    diff = subparsers.add_parser("diff", help="the semantic diff between two versions of a route")
    diff.add_argument("route")
    diff.add_argument("from_version", type=int, metavar="FROM")
    diff.add_argument("to_version", type=int, metavar="TO")
    add_server_options(diff)
    diff.set_defaults(handler=_guarded(cmd_diff))

    releases = subparsers.add_parser("releases", help="list releases, start a benchmark on live endpoints")
    actions = releases.add_subparsers(dest="releases_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="releases, newest first")
    listing.add_argument("--route", help="only this route's")
    listing.add_argument("--state", help="only in this state (several: comma-separated)")
    listing.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    add_server_options(listing)
    listing.set_defaults(handler=_guarded(cmd_releases_list))

    benchmark = actions.add_parser(
        "benchmark",
        help="start a release's benchmark on its live endpoints: exit 0 started, 1 refused "
        "(an endpoint drifted or expects something else), 2 invalid, 3 unreachable",
    )
    benchmark.add_argument("release", type=int)
    benchmark.add_argument("--baseline", metavar="NAME", help="instead of the endpoint named at proposal")
    benchmark.add_argument("--candidate", metavar="NAME", help="instead of the endpoint named at proposal")
    add_server_options(benchmark)
    # A refusal (role, state, drift) is 1, as for a decision.
    benchmark.set_defaults(handler=_guarded(cmd_benchmark, decision=True))


def cmd_diff(args: argparse.Namespace) -> int:
    params = {"from": args.from_version, "to": args.to_version}
    diff = _client(args).get(f"routes/{args.route}/diff", **params)
    impact = diff.get("highest_impact") or "none"
    benchmark = "required" if diff.get("requires_benchmark") else "not required"
    lines = [
        f"{diff['route']}: version {diff['from']} → {diff['to']} "
        f"(highest impact: {impact}; benchmark {benchmark})"
    ]
    lines += [
        f"  {c['impact']:>14}  {c['path']}: {c.get('old')!r} → {c.get('new')!r}"
        for c in diff.get("changes", [])
    ]
    if not diff.get("changes"):
        lines.append("  no changes")
    emit(args, diff, lines)
    return EXIT_OK


def cmd_releases_list(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {"limit": args.limit}
    if args.route:
        params["route"] = args.route
    if args.state:
        params["state"] = args.state
    page = _client(args).get("releases/", **params)
    releases = page.get("results", []) if isinstance(page, dict) else []
    lines = [
        f"{r['id']:>6}  {r['route']:<24} {r['state']:<16} gate: {_gate_words(r):<10} "
        f"v{r.get('baseline_version') or '-'} → v{r['candidate_version']}  by {r.get('proposed_by')}"
        for r in releases
    ] or ["no releases"]
    emit(args, releases, lines)
    return EXIT_OK
