"""More than one machine on one (issue 26, point 3): two gunicorn web processes on two
loopback ports (standing in for two hosts behind a load balancer) and two control-plane
Celery workers, sharing the test's PostgreSQL and one private redis-server (broker in db 0,
Django's cache in db 1), started once for the package. Each process reads its settings
from the environment, as in production: the same SECRET_KEY everywhere, CACHE_URL set
(docs/topology.md says why each is needed). Beats are started by the test that needs them.

The tests write through `transactional_db`: the processes see only committed rows."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.benchmarked import SERVERS
from tests.support.gunicorn import LiveServer, serve
from tests.support.processes import ControlPlaneWorker, RedisServer

# The API's per-token rate, low enough to reach in a test: each test uses tokens of its own.
TOKEN_RATE = 10
# Failed sign-ins for one name from one address before each further one waits.
LOGIN_FREE = 3


@dataclass
class Fleet:
    redis: RedisServer
    web: list[LiveServer]
    control: list[ControlPlaneWorker]
    env: dict[str, str] = field(default_factory=dict)

    @property
    def cache_url(self) -> str:
        return self.redis.url.rsplit("/", 1)[0] + "/1"


@pytest.fixture(scope="package")
def fleet(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Fleet]:
    home: Path = tmp_path_factory.mktemp("fleet")
    with ExitStack() as stack:
        redis = RedisServer()
        redis.start()
        stack.callback(redis.close)
        env = {
            "SECRET_KEY": secrets.token_urlsafe(50),  # one key for the whole fleet
            "CELERY_BROKER_URL": redis.url,
            "CACHE_URL": redis.url.rsplit("/", 1)[0] + "/1",
            "API_THROTTLE_TOKEN_RATE": f"{TOKEN_RATE}/min",
            "LOGIN_MAX_FAILURES": str(LOGIN_FREE),
        }
        # The workers first: they start while the web processes import.
        control = [ControlPlaneWorker(home / f"control-{n}", redis.url, env) for n in (1, 2)]
        for worker in control:
            stack.callback(worker.stop)
        web = [stack.enter_context(serve(env, workers=1)) for _ in (1, 2)]
        for worker in control:
            worker.wait_ready()
        stack.callback(SERVERS.stop)  # the engine emulators of a benchmarked release, if started
        yield Fleet(redis=redis, web=web, control=control, env=env)
