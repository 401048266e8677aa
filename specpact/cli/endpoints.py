"""`specpact endpoint add|set|list|probe`: a route's live endpoints (routes/{slug}/endpoints/).
`set` changes one (PATCH), typically pointing a canary at a release: `--expects release:7`.
`probe` exits 0 when the endpoint conforms, 1 when it drifted, 3 when its state is
unknown (unreachable or not reporting), 2 for invalid input."""

from __future__ import annotations

import argparse
import time
from typing import Any

from contracts_app.document.engines import SERVER_ENGINES
from specpact.cli.client import ApiError, Client
from specpact.cli.exit_codes import FAILED, INVALID, OK, UNREACHABLE
from specpact.cli.online import _guarded
from specpact.cli.output import emit, note

ENGINES = list(SERVER_ENGINES)

PROBE_EXIT = {"conforms": OK, "drifted": FAILED, "unknown": UNREACHABLE}


def register(subparsers: Any) -> None:
    endpoint = subparsers.add_parser("endpoint", help="a route's live endpoints: add, set, list, probe")
    actions = endpoint.add_subparsers(dest="endpoint_command", metavar="ACTION", required=True)

    add = actions.add_parser("add", help="register an endpoint of a route")
    add.add_argument("route")
    add.add_argument("name", help="e.g. prod-eu, canary")
    add.add_argument("--base-url", required=True, help="the OpenAI-compatible server")
    add.add_argument("--engine", required=True, choices=ENGINES)
    add.add_argument("--expects", default="active", help="active (default) or release:<id>")
    add.add_argument("--metrics-url", default="", help="default: <base-url>/metrics")
    _auth_options(add.add_mutually_exclusive_group())
    _server_options(add)
    add.set_defaults(handler=_guarded(cmd_add))

    change = actions.add_parser(
        "set", help="change an endpoint (operators): only what is given; unknown until probed again"
    )
    change.add_argument("route")
    change.add_argument("name")
    change.add_argument("--expects", help="active, or release:<id> (the release it now serves)")
    change.add_argument("--base-url", help="the OpenAI-compatible server")
    change.add_argument("--engine", choices=ENGINES)
    change.add_argument("--metrics-url", help="'' for <base-url>/metrics")
    secret = change.add_mutually_exclusive_group()
    _auth_options(secret)
    secret.add_argument("--no-auth", action="store_true", help="drop the endpoint's auth")
    _server_options(change)
    change.set_defaults(handler=_guarded(cmd_set))

    listing = actions.add_parser("list", help="a route's endpoints and their state")
    listing.add_argument("route")
    listing.add_argument("--json", action="store_true")
    _server_options(listing)
    listing.set_defaults(handler=_guarded(cmd_list))

    probe = actions.add_parser("probe", help="probe an endpoint now (exit 0 conforms, 1 drifted, 3 unknown)")
    probe.add_argument("route")
    probe.add_argument("name")
    probe.add_argument("--json", action="store_true")
    _server_options(probe)
    probe.set_defaults(handler=_guarded(cmd_probe))


def _auth_options(group: Any) -> None:
    group.add_argument(
        "--auth-binding",
        metavar="NAME",
        help="one of the route's secret bindings (an admin binds a secret to the route and its hosts)",
    )
    # The old shapes: a server answers with where to bind the secret first.
    group.add_argument("--auth-env", help=argparse.SUPPRESS)
    group.add_argument("--auth-file", help=argparse.SUPPRESS)


def _auth(args: argparse.Namespace) -> dict[str, str] | None:
    if args.auth_binding:
        return {"binding": args.auth_binding}
    if args.auth_env:
        return {"env": args.auth_env}
    if args.auth_file:
        return {"file": args.auth_file}
    return None


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="SpecPact server URL (default: $SPECPACT_URL)")
    parser.add_argument("--token", help="API token (default: $SPECPACT_TOKEN)")


def _client(args: argparse.Namespace) -> Client:
    # A probe may take the server's probe limit (ENDPOINT_PROBE_TIMEOUT_S) and then some.
    return Client(args.url, args.token, timeout=60.0)


def describe(probe: dict[str, Any] | None) -> str:
    if not probe:
        return "not probed yet"
    text = f"{probe['state']} (version {probe.get('version')}, probed {probe.get('probed_at')})"
    diffs = [
        f"{d['path']} {d.get('engine')!r} ≠ {d.get('contract')!r}" for d in probe.get("differences") or []
    ]
    if diffs:
        text += ": " + "; ".join(diffs)
    elif probe["state"] == "unknown" and probe.get("reason"):
        text += f": {probe['reason']}"
    return text


def cmd_add(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"name": args.name, "base_url": args.base_url, "engine": args.engine,
                            "expects": args.expects}  # fmt: skip
    if args.metrics_url:
        body["metrics_url"] = args.metrics_url
    if _auth(args) is not None:
        body["auth"] = _auth(args)
    _, endpoint = _client(args).post(f"routes/{args.route}/endpoints/", body)
    print(f"{args.route}/{endpoint['name']}: registered ({endpoint['engine']} at {endpoint['base_url']}, "
          f"expects {endpoint['expects']})")  # fmt: skip
    return OK


def cmd_set(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {
        key: value
        for key, value in (
            ("expects", args.expects),
            ("base_url", args.base_url),
            ("engine", args.engine),
            ("metrics_url", args.metrics_url),
        )
        if value is not None
    }
    if _auth(args) is not None:
        body["auth"] = _auth(args)
    elif args.no_auth:
        body["auth"] = None
    if not body:
        raise ApiError(
            "nothing to change: give --expects, --base-url, --engine, --metrics-url or an auth option",
            INVALID,
        )
    _, endpoint = _client(args).request("PATCH", f"routes/{args.route}/endpoints/{args.name}/", json=body)
    line = (
        f"{args.route}/{endpoint['name']}: {endpoint['engine']} at {endpoint['base_url']}, "
        f"expects {endpoint['expects']}, {endpoint['state']}"
    )
    emit(args, endpoint, [line])
    if endpoint.get("auth_dropped"):  # the URL moved off its binding's hosts: no secret goes there
        note(f"auth dropped: {endpoint['auth_dropped']}")
    if endpoint["state"] == "unknown":  # a change forgets the last probe, which judged the old one
        note(f"probe it now: specpact endpoint probe {args.route} {endpoint['name']}")
    return OK


def cmd_list(args: argparse.Namespace) -> int:
    endpoints = _client(args).get(f"routes/{args.route}/endpoints/")
    lines = [
        f"{e['name']:<16} {e['engine']:<9} {e['expects']:<12} {describe(e.get('last_probe'))}"
        for e in endpoints
    ]
    emit(args, endpoints, lines or [f"{args.route}: no endpoints"])
    return OK


# How long `probe` follows a probe the server answered 202 for (queued or running on its
# control-plane worker), and how often it looks.
PROBE_FOLLOW_S, PROBE_POLL_S = 120.0, 1.0


def cmd_probe(args: argparse.Namespace) -> int:
    if not args.name:
        return INVALID
    client = _client(args)
    status, probe = client.post(f"routes/{args.route}/endpoints/{args.name}/probe")
    if status == 202:  # not done within the server's short wait: read the request until it is
        path = f"routes/{args.route}/endpoints/{args.name}/probes/{probe['id']}"
        ends_at = time.monotonic() + PROBE_FOLLOW_S
        while probe["state"] in ("queued", "running") and time.monotonic() < ends_at:
            time.sleep(PROBE_POLL_S)
            probe = client.get(path)
        if probe["state"] != "done" or not probe.get("probe"):
            why = probe.get("reason") or f"still {probe['state']} after {PROBE_FOLLOW_S:g} s"
            emit(args, probe, [f"{args.route}/{args.name}: not probed: {why}"])
            return UNREACHABLE
        probe = probe["probe"]
    elif probe.get("state") == "failed":  # the request itself failed (the reason says why)
        emit(args, probe, [f"{args.route}/{args.name}: not probed: {probe.get('reason')}"])
        return UNREACHABLE
    emit(args, probe, [f"{args.route}/{args.name}: {describe(probe)}"])
    return PROBE_EXIT.get(probe.get("state"), UNREACHABLE)
