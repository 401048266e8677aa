"""The chaos step's system (tests/chaos/world.py), started once for all the faults, which
run one after the other on it (only a killed process is started again)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks_app.services.workers import bootstrap_token_create
from contracts_app.models import Route
from live_app.services import endpoint_create
from tests.chaos.world import World
from tests.live.conftest import vllm_claim
from tests.support.factories import make_version, variant
from tests.support.launcher import Emulators
from tests.support.processes import Gunicorn, RedisServer

DEV = {"VLLM_SERVER_DEV_MODE": "1"}
# One lane, two levels of few short requests: a run takes a second or two on the emulators.
SMALL = {"extraction": {"dataset": "builtin:extraction", "concurrency": [1, 2], "requests_per_level": 3,
                        "max_tokens": 8}}  # fmt: skip
# The control plane's intervals, shortened (production reads the same settings from its
# environment): a worker silent 4 s is offline, the sweep, the relay and the pass that
# concludes releases left behind tick every second. The broker's visibility timeout stays
# as configured: a run's time limit must stay below it (spec_build._time_limits), and a
# conclusion cut short is the left-behind pass's to finish, not a redelivery's.
CONTROL_ENV = {
    "WORKER_OFFLINE_AFTER_S": "4",
    "RUN_SWEEP_INTERVAL_S": "1",
    "OUTBOX_RELAY_INTERVAL_S": "1",
    "ENDPOINT_PROBE_TIMEOUT_S": "3",
}


@pytest.fixture
def chaos_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A private redis-server, persistent as docker-compose runs it (a restart keeps the
    queued messages; the fault is the broker gone for a while, not its data)."""
    data = tmp_path / "redis-data"
    data.mkdir()
    server = RedisServer(data_dir=data)
    server.start()
    yield server
    server.close()


@pytest.fixture
def world(
    request: pytest.FixtureRequest,
    settings: Any,
    live_server: Any,
    chaos_redis: RedisServer,
    route_v1: Route,
    proposer: Any,
    operator: Any,
    approver: Any,
    tmp_path: Path,
    sends_through_the_broker: None,
) -> Iterator[World]:
    settings.CELERY_BROKER_URL = chaos_redis.url
    settings.WORKER_BROKER_URL = chaos_redis.url
    settings.WORKER_HEARTBEAT_S = 1
    settings.WORKER_OFFLINE_AFTER_S = int(CONTROL_ENV["WORKER_OFFLINE_AFTER_S"])
    settings.ENDPOINT_PROBE_TIMEOUT_S = int(CONTROL_ENV["ENDPOINT_PROBE_TIMEOUT_S"])
    candidate = make_version(
        route_v1,
        variant(
            route_v1.active_version.document,
            **{"speculation.num_speculative_tokens": 3, "measurement.workloads": SMALL},
        ),
    )
    with Emulators() as emulators:
        prod = emulators.start(*vllm_claim(), "--pattern", "1", "--step-ms", "10", env=DEV)
        canary = emulators.start(
            *vllm_claim(num_speculative_tokens=3), "--pattern", "3", "--step-ms", "10", env=DEV
        )
        endpoint_create(route=route_v1, name="prod-eu", base_url=prod.base_url, engine="vllm", actor=operator)
        _, bootstrap = bootstrap_token_create(note="chaos")
        control_env = {
            "ENDPOINT_ALLOWED_NETWORKS": str(settings.ENDPOINT_ALLOWED_NETWORKS),
            **CONTROL_ENV,
        }
        # The agents' API: the test's live server, or (`indirect` param "gunicorn") a real
        # web process whose workers a fault may kill; the test's own calls stay in-process.
        web = None
        if getattr(request, "param", None) == "gunicorn":
            web_env = {
                **control_env,
                "WORKER_BROKER_URL": chaos_redis.url,
                "WORKER_HEARTBEAT_S": str(settings.WORKER_HEARTBEAT_S),
            }
            web = Gunicorn(tmp_path / "web", chaos_redis.url, web_env)
            web.wait_ready()
        world = World(
            home=tmp_path,
            url=web.url if web else live_server.url,
            redis=chaos_redis,
            route=route_v1,
            candidate_number=candidate.number,
            canary_url=canary.base_url,
            proposer=proposer,
            operator=operator,
            approver=approver,
            bootstrap=bootstrap,
            control_env=control_env,
            web=web,
        )
        try:
            world.start()
            yield world
        finally:
            world.stop()
