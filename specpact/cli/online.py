"""The CLI's server commands, for release pipelines: submit, wait, status, approve,
rollback. Exit codes: 0 success or gate pass, 1 gate fail or rejected, 2 invalid input
or usage, 3 timeout or server unreachable."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from specpact.cli.client import ApiError, Client
from specpact.cli.exit_codes import FAILED as EXIT_FAIL
from specpact.cli.exit_codes import INVALID as EXIT_INVALID
from specpact.cli.exit_codes import OK as EXIT_OK
from specpact.cli.exit_codes import UNREACHABLE as EXIT_UNREACHABLE

# Release states in which the gate has not spoken yet.
PENDING_STATES = {"proposed", "benchmarking"}
FAILED_STATES = {"rejected", "failed", "cancelled"}


def add_server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="SpecPact server URL (default: $SPECPACT_URL)")
    parser.add_argument("--token", help="API token (default: $SPECPACT_TOKEN)")


def register(subparsers: Any) -> None:
    submit = subparsers.add_parser("submit", help="upload a contract version and propose a release")
    submit.add_argument("file", type=Path)
    submit.add_argument("--wait", action="store_true", help="wait for the gate's verdict")
    submit.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait (default 3600)")
    submit.add_argument("--no-release", action="store_true", help="only upload the version")
    add_server_options(submit)
    submit.set_defaults(handler=_guarded(cmd_submit))

    wait = subparsers.add_parser("wait", help="wait for a release's gate verdict")
    wait.add_argument("release", type=int)
    wait.add_argument("--timeout", type=float, default=3600.0)
    add_server_options(wait)
    wait.set_defaults(handler=_guarded(cmd_wait))

    status = subparsers.add_parser("status", help="show a release's state and verdict")
    status.add_argument("release", type=int)
    add_server_options(status)
    status.set_defaults(handler=_guarded(cmd_status))

    approve = subparsers.add_parser("approve", help="approve a release (activates it)")
    approve.add_argument("release", type=int)
    approve.add_argument("--reason", required=True)
    approve.add_argument("--override", action="store_true", help="approve despite a failed gate")
    approve.add_argument("--justification", default="", help="required with --override")
    add_server_options(approve)
    approve.set_defaults(handler=_guarded(cmd_approve))

    rollback = subparsers.add_parser("rollback", help="roll a route back to its contract's rollback target")
    rollback.add_argument("route")
    rollback.add_argument("--reason", required=True)
    add_server_options(rollback)
    rollback.set_defaults(handler=_guarded(cmd_rollback))


def _client(args: argparse.Namespace) -> Client:
    return Client(args.url, args.token)


def _verdict_exit(release: dict[str, Any]) -> int:
    if release.get("state") in FAILED_STATES or release.get("gate_verdict") == "fail":
        return EXIT_FAIL
    return EXIT_OK


def _print_release(release: dict[str, Any]) -> None:
    verdict = release.get("gate_verdict") or "none yet"
    print(f"release {release['id']}: {release.get('state')} (gate: {verdict})")
    gate = release.get("gate_result") or {}
    for rule in gate.get("rules", []) if isinstance(gate, dict) else []:
        if isinstance(rule, dict) and rule.get("reason"):
            print(f"  [{rule.get('verdict')}] {rule['reason']}")


def cmd_submit(args: argparse.Namespace) -> int:
    try:
        raw = args.file.read_bytes()
    except OSError as exc:
        print(f"cannot read {args.file}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    from contracts_app.document import ContractError, parse_document

    fmt: Literal["yaml", "json"] = "json" if args.file.suffix.lower() == ".json" else "yaml"
    try:
        route = str(parse_document(raw, fmt).get("route", ""))
    except ContractError as exc:
        for error in exc.errors or []:
            print(f"{error.path or '(document)'}: {error.message}", file=sys.stderr)
        print(exc.detail, file=sys.stderr)
        return EXIT_INVALID
    client = _client(args)
    content_type = "application/json" if fmt == "json" else "application/yaml"
    code, version = client.request(
        "POST", f"routes/{route}/versions/", content=raw, headers={"Content-Type": content_type}
    )
    what = "uploaded" if code == 201 else "already stored as"
    print(f"{route}: {what} version {version['version']} ({version['digest']})")
    for change in version.get("diff_from_active", []):
        print(f"  {change['impact']:>14}  {change['path']}: {change.get('old')!r} → {change.get('new')!r}")
    if args.no_release:
        return EXIT_OK
    _, release = client.post("releases/", {"route": route, "candidate_version": version["version"]})
    _print_release(release)
    if not args.wait:
        return EXIT_OK
    return _wait(client, release["id"], args.timeout)


def _wait(client: Client, release_id: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    delay = 1.0
    while True:
        release = client.get(f"releases/{release_id}/")
        if release.get("state") not in PENDING_STATES:
            _print_release(release)
            return _verdict_exit(release)
        if time.monotonic() >= deadline:
            print(f"release {release_id} still {release.get('state')} after {timeout:.0f} s", file=sys.stderr)
            return EXIT_UNREACHABLE
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, 15.0)


def cmd_wait(args: argparse.Namespace) -> int:
    return _wait(_client(args), args.release, args.timeout)


def cmd_status(args: argparse.Namespace) -> int:
    release = _client(args).get(f"releases/{args.release}/")
    _print_release(release)
    return _verdict_exit(release)


def cmd_approve(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"reason": args.reason}
    if args.override:
        body.update(override=True, justification=args.justification)
    _, release = _client(args).post(f"releases/{args.release}/approve", body)
    _print_release(release)
    return EXIT_OK


def cmd_rollback(args: argparse.Namespace) -> int:
    client = _client(args)
    page = client.get("releases/", route=args.route, state="active")
    active = page.get("results", []) if isinstance(page, dict) else []
    if not active:
        print(f"route {args.route!r} has no active release to roll back", file=sys.stderr)
        return EXIT_INVALID
    _, release = client.post(f"releases/{active[0]['id']}/rollback", {"reason": args.reason})
    _print_release(release)
    return EXIT_OK


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A server command whose API errors become their exit codes and a message on stderr."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ApiError as exc:
            print(str(exc), file=sys.stderr)
            return exc.exit_code

    return run
