"""`specpact-worker run --url URL --bootstrap-token T [--queue Q] [--name N]`

Registers with the control plane (or reuses the saved registration), starts the heartbeat
thread, and runs a Celery worker (prefork, concurrency 1) on the worker's queues until
stopped. Also runnable as `python -m worker.run_cli run …`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from worker.agent.client import ApiClient, ApiError, with_backoff
from worker.agent.credentials import Credentials, credentials_path, state_dir

log = logging.getLogger("specpact.worker")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="register with a SpecPact server and run benchmarks from its queues"
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("SPECPACT_URL"),
        help="the control plane, e.g. https://specpact.example",
    )
    parser.add_argument(
        "--bootstrap-token",
        default=os.environ.get("SPECPACT_BOOTSTRAP_TOKEN"),
        help="from `manage.py createbootstraptoken`; needed only until the worker is registered",
    )
    parser.add_argument(
        "--queue",
        action="append",
        default=[],
        help="an operator-named pool to ask for at registration (repeatable); the control plane "
        "assigns the worker's own queue and its hardware and engine pools",
    )
    parser.add_argument("--name", help="the worker's name (default: the host name)")
    parser.add_argument(
        "--home", help="folder for the saved registration and results (default ~/.specpact-worker)"
    )
    parser.add_argument("--broker", help="broker URL to use instead of the one the server hands out")
    parser.add_argument("--reregister", action="store_true", help="ignore a saved registration")
    parser.add_argument("--loglevel", default="INFO")
    parser.set_defaults(handler=run_command)


def _register(url: str, bootstrap: str | None, name: str | None, queues: list[str]) -> Credentials:
    from worker.agent.facts import registration_facts

    if not bootstrap:
        raise SystemExit(
            "error: this worker is not registered yet: give --bootstrap-token (or SPECPACT_BOOTSTRAP_TOKEN)"
        )
    client = ApiClient(url)
    try:
        body = with_backoff(
            lambda: client.register(bootstrap, registration_facts(name=name, extra_queues=queues))
        )
    except ApiError as exc:
        raise SystemExit(f"error: registration refused: {exc}") from None
    finally:
        client.close()
    return Credentials.from_registration(url, body)


def _check_still_valid(credentials: Credentials) -> None:
    """A refused token means the worker was revoked: enrolling again silently (with a
    bootstrap token still in the environment) would undo the revocation."""
    client = ApiClient(credentials.url, credentials.token)
    try:
        with_backoff(lambda: client.heartbeat(None), tries=3)
    except ApiError as exc:
        if exc.status == 401:
            raise SystemExit(
                f"error: the control plane refuses worker {credentials.worker_id}'s token ({exc.detail}); "
                "it was probably revoked. Pass --reregister to enrol this machine as a new worker."
            ) from None
        raise SystemExit(f"error: the control plane did not answer: {exc}") from None
    finally:
        client.close()


def queues_to_consume(credentials: Credentials, asked: list[str]) -> list[str]:
    """The queues the control plane assigned (its answer to the registration), and only
    those: a queue the worker added on its own would bring it runs it is refused (403)."""
    unassigned = [q for q in asked if q not in credentials.queues]
    if unassigned:
        log.warning(
            "not consuming %s: the control plane did not assign it to worker %s "
            "(extra queues are asked for at registration: pass --reregister)",
            ", ".join(unassigned),
            credentials.worker_id,
        )
    return list(credentials.queues)


def run_command(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.loglevel.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # One line per HTTP call (progress, heartbeats) would drown the worker's own log.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if not args.url:
        raise SystemExit("error: give --url (or SPECPACT_URL)")
    url = args.url.rstrip("/")
    home = state_dir(args.home)
    # Task processes (forked by Celery) find the registration through this.
    os.environ["SPECPACT_WORKER_HOME"] = str(home)
    path = credentials_path(home)
    credentials = None if args.reregister else Credentials.load(path)
    if credentials is not None and credentials.url != url:
        credentials = None  # registered with another control plane
    if credentials is not None:
        _check_still_valid(credentials)
    if credentials is None:
        credentials = _register(url, args.bootstrap_token, args.name, args.queue)
        credentials.save(path)
        log.info("registered as worker %s (%s)", credentials.worker_id, credentials.name)
    else:
        log.info("using the saved registration of worker %s", credentials.worker_id)

    from worker.agent.celery_app import configure
    from worker.agent.heartbeat import Heartbeat
    from worker.agent.state import AgentState

    state = AgentState(home)
    state.clear_current()  # whatever ran before this start is not running now
    app = configure(credentials, broker_url=args.broker)
    heartbeat = Heartbeat(ApiClient(url, credentials.token), state, credentials.heartbeat_interval_s)
    heartbeat.beat()
    heartbeat.start()
    queues = queues_to_consume(credentials, args.queue)
    log.info("consuming %s from %s", ", ".join(queues), str(app.conf.broker_read_url).split("@")[-1])
    try:
        app.worker_main(
            [
                "worker",
                "--pool=prefork",
                "--concurrency=1",
                f"--queues={','.join(queues)}",
                f"--hostname=specpact-worker-{credentials.worker_id}@%h",
                f"--loglevel={args.loglevel}",
                "--without-gossip",
                "--without-mingle",
            ]
        )
    finally:
        heartbeat.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="specpact-worker")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
