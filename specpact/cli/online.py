"""The CLI's server commands, for release pipelines: submit, wait, status, approve,
cancel, rollback, and `releases benchmark` (a release waiting for its live endpoints).
Exit codes (DESIGN.md §8): 0 success or gate pass, 1 gate fail or a refused release or
decision, 2 invalid input or usage, 3 timeout or server unreachable, 4 gate marginal (submit
--wait, wait and status; 0 with --allow-marginal)."""

from __future__ import annotations

import argparse
import re
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from live_app.expects import Expects
from specpact.cli.client import ApiError, Client
from specpact.cli.decision import decision, decision_line
from specpact.cli.exit_codes import FAILED as EXIT_FAIL
from specpact.cli.exit_codes import INVALID as EXIT_INVALID
from specpact.cli.exit_codes import MARGINAL as EXIT_MARGINAL
from specpact.cli.exit_codes import OK as EXIT_OK
from specpact.cli.exit_codes import UNREACHABLE as EXIT_UNREACHABLE
from specpact.cli.output import emit, note, wants_json

# Release states in which the gate has not spoken yet.
PENDING_STATES = {"proposed", "benchmarking"}
# `wait`: a line at least this often while a benchmark runs, even when nothing but its
# clocks moved (a silent minute reads as a hung command); polls at most this far apart.
PROGRESS_EVERY_S = 15.0
POLL_MAX_S = 10.0
FAILED_STATES = {"rejected", "failed", "cancelled"}
# A release in one of these blocks another proposal on its route (releases_app OPEN_STATES).
OPEN_STATES = ("proposed", "benchmarking", "awaiting_review", "approved")
# Answers to a decision that mean "refused" (role, four eyes, state, stale ETag), not bad input.
REFUSED_STATUSES = {403, 409, 412}


def add_server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="SpecPact server URL (default: $SPECPACT_URL)")
    parser.add_argument("--token", help="API token (default: $SPECPACT_TOKEN)")


def add_allow_marginal(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-marginal",
        action="store_true",
        help="exit 0, not 4, when the gate's verdict is marginal (not enough evidence either way)",
    )


def register(subparsers: Any) -> None:
    submit = subparsers.add_parser("submit", help="upload a contract version and propose a release")
    submit.add_argument("file", type=Path)
    submit.add_argument(
        "--wait", action="store_true", help="wait for the gate's verdict, with progress on stderr"
    )
    submit.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait (default 3600)")
    submit.add_argument("--no-release", action="store_true", help="only upload the version")
    add_allow_marginal(submit)
    submit.add_argument(
        "--baseline-endpoint",
        metavar="NAME",
        help="benchmark on live endpoints: the route's endpoint serving the active version (with "
        "--candidate-endpoint; the release then waits until `specpact releases benchmark` starts it)",
    )
    submit.add_argument(
        "--candidate-endpoint", metavar="NAME", help="the endpoint that will serve the candidate"
    )
    add_server_options(submit)
    submit.set_defaults(handler=_guarded(cmd_submit))

    wait = subparsers.add_parser("wait", help="wait for a release's gate verdict, with progress on stderr")
    wait.add_argument("release", type=int)
    wait.add_argument("--timeout", type=float, default=3600.0)
    add_allow_marginal(wait)
    add_server_options(wait)
    wait.set_defaults(handler=_guarded(cmd_wait))

    status = subparsers.add_parser("status", help="show a release's state and verdict")
    status.add_argument("release", type=int)
    add_allow_marginal(status)
    add_server_options(status)
    status.set_defaults(handler=_guarded(cmd_status))

    approve = subparsers.add_parser("approve", help="approve a release (activates it)")
    approve.add_argument("release", type=int)
    approve.add_argument("--reason", required=True)
    approve.add_argument("--override", action="store_true", help="approve despite a failed gate")
    approve.add_argument("--justification", default="", help="required with --override")
    add_server_options(approve)
    approve.set_defaults(handler=_guarded(cmd_approve, decision=True))

    cancel = subparsers.add_parser("cancel", help="withdraw an open release")
    cancel.add_argument("release", type=int)
    cancel.add_argument("--reason", required=True)
    add_server_options(cancel)
    cancel.set_defaults(handler=_guarded(cmd_cancel, decision=True))

    rollback = subparsers.add_parser("rollback", help="roll a route back to its contract's rollback target")
    rollback.add_argument("route")
    rollback.add_argument("--reason", required=True)
    add_server_options(rollback)
    rollback.set_defaults(handler=_guarded(cmd_rollback, decision=True))


def _client(args: argparse.Namespace) -> Client:
    return Client(args.url, args.token)


def _verdict_exit(release: dict[str, Any], args: argparse.Namespace) -> int:
    if release.get("state") in FAILED_STATES or release.get("gate_verdict") == "fail":
        return EXIT_FAIL
    if release.get("gate_verdict") == "marginal" and not args.allow_marginal:
        return EXIT_MARGINAL
    return EXIT_OK


def _with_decision(release: dict[str, Any]) -> dict[str, Any]:
    """The release as the API gave it, plus the verdict with its deciding rule."""
    return {**release, "decision": decision(release)}


def _gate_words(release: dict[str, Any]) -> str:
    if release.get("gate_verdict"):
        return str(release["gate_verdict"])
    if release.get("state") in PENDING_STATES:
        return "pending"
    if release.get("state") in FAILED_STATES:
        return "none"
    return "not needed"  # a first release or a cosmetic change: no benchmark


def release_lines(release: dict[str, Any]) -> list[str]:
    lines = [f"release {release['id']}: {release.get('state')} (gate: {_gate_words(release)})"]
    decided = decision_line(decision(release))
    if decided:
        lines.append(decided)
    if release.get("failure_reason"):
        lines.append(f"  reason: {release['failure_reason']}")
    if release.get("waiting_for_endpoints"):
        lines.append(f"  waiting for {release['waiting_for_endpoints']}")
    gate = release.get("gate_result") or {}
    for rule in gate.get("rules", []) if isinstance(gate, dict) else []:
        if isinstance(rule, dict) and rule.get("reason"):
            lines.append(f"  [{rule.get('verdict')}] {rule['reason']}")
    return lines


def _read_contract(path: Path) -> tuple[bytes, Literal["yaml", "json"], str]:
    from contracts_app.document import ContractError, parse_document

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ApiError(f"cannot read {path}: {exc}", EXIT_INVALID) from None
    fmt: Literal["yaml", "json"] = "json" if path.suffix.lower() == ".json" else "yaml"
    try:
        route = str(parse_document(raw, fmt).get("route", ""))
    except ContractError as exc:
        errors = [{"path": e.path, "message": e.message} for e in exc.errors or []]
        raise ApiError(exc.detail, EXIT_INVALID, errors=errors) from None
    return raw, fmt, route


def _open_release(client: Client, route: str) -> dict[str, Any] | None:
    page = client.get("releases/", route=route, state=",".join(OPEN_STATES))
    results = page.get("results", []) if isinstance(page, dict) else []
    return results[0] if results else None


def _endpoint_names(args: argparse.Namespace) -> dict[str, str] | None:
    """The proposal's `endpoints`, or None; a usage error (2) before anything is sent."""
    baseline, candidate = args.baseline_endpoint, args.candidate_endpoint
    if not baseline and not candidate:
        return None
    if not baseline or not candidate:
        raise ApiError("give both --baseline-endpoint and --candidate-endpoint, or neither", EXIT_INVALID)
    if args.no_release:
        raise ApiError("--no-release opens no release to benchmark on endpoints", EXIT_INVALID)
    return {"baseline": baseline, "candidate": candidate}


def cmd_submit(args: argparse.Namespace) -> int:
    endpoints = _endpoint_names(args)
    raw, fmt, route = _read_contract(args.file)
    client = _client(args)
    if not args.no_release:
        # Checked first, so that a submit that can't open a release uploads nothing.
        blocking = _open_release(client, route)
        if blocking is not None:
            raise ApiError(
                f"route {route} already has release {blocking['id']} open ({blocking['state']}); nothing was "
                f"uploaded. Wait for it (specpact wait {blocking['id']}) or withdraw it "
                f"(specpact cancel {blocking['id']} --reason …), then submit again.",
                EXIT_FAIL,
                409,
            )
    content_type = "application/json" if fmt == "json" else "application/yaml"
    # One key per submit: a retried request can't store or propose twice.
    key = uuid.uuid4().hex
    code, version = client.request(
        "POST",
        f"routes/{route}/versions/",
        content=raw,
        headers={"Content-Type": content_type, "Idempotency-Key": f"{key}-version"},
    )
    what = "uploaded" if code == 201 else "already stored as"
    lines = [f"{route}: {what} version {version['version']} ({version['digest']})"]
    lines += [
        f"  {c['impact']:>14}  {c['path']}: {c.get('old')!r} → {c.get('new')!r}"
        for c in version.get("diff_from_active", [])
    ]
    result: dict[str, Any] = {"route": route, "version": version}
    if args.no_release:
        emit(args, result, lines)
        return EXIT_OK
    proposal: dict[str, Any] = {"route": route, "candidate_version": version["version"]}
    again = f"specpact submit {args.file}"
    if endpoints is not None:
        proposal["endpoints"] = endpoints
        again += f" --baseline-endpoint {endpoints['baseline']} --candidate-endpoint {endpoints['candidate']}"
    try:
        _, release = client.post("releases/", proposal, headers={"Idempotency-Key": f"{key}-release"})
    except ApiError as exc:
        emit(args, result, lines)
        raise ApiError(
            f"{exc.message}\nversion {version['version']} of {route} is stored but no release was opened; "
            f"propose it later with: {again} (the same document finds the same version)",
            EXIT_FAIL if exc.status in REFUSED_STATUSES else exc.exit_code,
            exc.status,
            exc.errors,
        ) from None
    lines += release_lines(release)
    if release.get("waiting_for_endpoints") and endpoints is not None:
        # The server's words name the API; these are the same two steps from here.
        note(
            f"then: specpact endpoint set {route} {endpoints['candidate']} "
            f"--expects {Expects.of_release(release['id'])} "
            f"(once the candidate runs there), and: specpact releases benchmark {release['id']}"
        )
    if not args.wait:
        emit(args, {**result, "release": release}, lines)
        return EXIT_OK
    if not wants_json(args):
        emit(args, None, lines)
    final, code = _wait(client, release["id"], args, printed=release_lines(release)[0])
    if wants_json(args):
        emit(args, {**result, "release": final, "decision": decision(final)}, [])
    return code


def _run_progress(client: Client, release_id: int) -> str:
    page = client.get("runs/", release=release_id)
    runs = page.get("results", []) if isinstance(page, dict) else []
    parts = []
    for run in runs:
        progress = run.get("progress") or {}
        done, total = progress.get("done", 0), progress.get("total", 0)
        words = f"run {run['id']} {run.get('state')}" + (f" {done}/{total}" if total else "")
        if run.get("waiting_reason"):
            # Said from the first poll (the run knows at creation), not only once the
            # release gives up after RUN_WORKER_WAIT_MAX_S.
            words += f" (waiting for a worker: {run['waiting_reason']})"
        elif run.get("last_error") and run.get("state") in ("queued", "running"):
            words += f" ({run['last_error']})"
        if run.get("state") == "running" and progress.get("words"):
            # The phase (the engine starting), the level and arm, their clock, the estimate.
            words += f": {progress['words']}"
        parts.append(words)
    return ", ".join(parts)


def _unclocked(line: str) -> str:
    """The progress line without its clocks: what has to change for a line to be news."""
    return re.sub(r"\d+ (h|min|s)\b", "", line)


def _wait(
    client: Client, release_id: int, args: argparse.Namespace, printed: str = ""
) -> tuple[dict[str, Any], int]:
    """Poll until the gate has spoken; a progress line on stderr whenever something
    changed (the release's state, a run's progress or phase, the level it runs) and at
    least every PROGRESS_EVERY_S while it runs (the clocks move), the verdict on stdout
    when it lands."""
    timeout = float(args.timeout)
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    delay = 1.0
    last_progress, last_said = "", 0.0
    while True:
        release = client.get(f"releases/{release_id}/")
        if release.get("state") not in PENDING_STATES:
            lines = release_lines(release)
            if lines[0] == printed:
                lines = lines[1:]  # said already (a release that needed no gate)
            if not wants_json(args):
                emit(args, None, lines)
            return release, _verdict_exit(release, args)
        progress = f"release {release_id}: {release.get('state')}"
        waits = release.get("waiting_for_endpoints")
        if waits:
            # Nothing runs until someone starts the benchmark: say so, not a bare "proposed".
            progress += f", waiting for {waits}"
        runs = _run_progress(client, release_id)
        if runs:
            progress += f", {runs}"
        now = time.monotonic()
        if _unclocked(progress) != _unclocked(last_progress) or now - last_said >= PROGRESS_EVERY_S:
            note(f"[{now - started:5.0f} s] {progress}")
            last_progress, last_said = progress, now
        if time.monotonic() >= deadline:
            still = f"release {release_id} still {release.get('state')} after {timeout:.0f} s"
            raise ApiError(still + (f", waiting for {waits}" if waits else ""), EXIT_UNREACHABLE)
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, POLL_MAX_S)


def cmd_wait(args: argparse.Namespace) -> int:
    release, code = _wait(_client(args), args.release, args)
    if wants_json(args):
        emit(args, _with_decision(release), [])
    return code


def cmd_status(args: argparse.Namespace) -> int:
    release = _client(args).get(f"releases/{args.release}/")
    emit(args, _with_decision(release), release_lines(release))
    return _verdict_exit(release, args)


def cmd_approve(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"reason": args.reason}
    if args.override:
        body.update(override=True, justification=args.justification)
    _, release = _client(args).post(f"releases/{args.release}/approve", body)
    emit(args, release, release_lines(release))
    return EXIT_OK


def cmd_cancel(args: argparse.Namespace) -> int:
    _, release = _client(args).post(f"releases/{args.release}/cancel", {"reason": args.reason})
    emit(args, release, release_lines(release))
    return EXIT_OK


def cmd_benchmark(args: argparse.Namespace) -> int:
    """Start a release's benchmark on its live endpoints (or on these instead). The server
    probes both first, so a drifted one is a refusal (409: exit 1) with the differences."""
    body = {arm: name for arm, name in (("baseline", args.baseline), ("candidate", args.candidate)) if name}
    # Two probes, each within the server's ENDPOINT_PROBE_TIMEOUT_S (10 s by default).
    client = Client(args.url, args.token, timeout=60.0)
    note(f"release {args.release}: probing its endpoints…")
    _, release = client.post(f"releases/{args.release}/benchmark", body)
    names = release.get("endpoints") or {}
    lines = release_lines(release)
    if names:
        lines.append(f"  on {names.get('baseline')} (baseline) and {names.get('candidate')} (candidate)")
    emit(args, release, lines)
    return EXIT_OK


def cmd_rollback(args: argparse.Namespace) -> int:
    client = _client(args)
    page = client.get("releases/", route=args.route, state="active")
    active = page.get("results", []) if isinstance(page, dict) else []
    if not active:
        raise ApiError(f"route {args.route!r} has no active release to roll back", EXIT_INVALID)
    _, release = client.post(f"releases/{active[0]['id']}/rollback", {"reason": args.reason})
    emit(args, release, release_lines(release))
    return EXIT_OK


def _guarded(
    handler: Callable[[argparse.Namespace], int], *, decision: bool = False
) -> Callable[[argparse.Namespace], int]:
    """A server command whose API errors become their exit codes and a message (on
    stderr; with --output json also as {"error": …} on stdout). For a decision, a refusal
    (role, four eyes, state, stale ETag) is 1, "rejected", not 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ApiError as exc:
            code = EXIT_FAIL if decision and exc.status in REFUSED_STATUSES else exc.exit_code
            print(str(exc), file=sys.stderr)
            if wants_json(args):
                emit(
                    args,
                    {"error": exc.message, "status": exc.status, "errors": exc.errors, "exit_code": code},
                    [],
                )
            return code

    return run
