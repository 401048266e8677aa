"""Probes hold no web worker: on a real gunicorn (2 sync workers) with the control-plane
worker on a real Redis, two probes of a stalling endpoint in flight leave viewers served at
once (their requests complete long before the probe deadline elapses); the probe asks get
202 with where to read the probe, which says `unknown` once the deadline has cut it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from live_app.models import Endpoint
from tests.support.factories import make_token
from tests.support.gunicorn import LOOPBACK_AND_PRIVATE, serve
from tests.support.processes import ControlPlaneWorker, RedisServer
from tests.support.slow_servers import stalling

pytestmark = pytest.mark.integration

URL = "/api/v1/routes/contract-summaries/endpoints/"
DEADLINE_S = 8


def test_viewers_are_served_while_probes_of_a_stalling_endpoint_are_in_flight(
    transactional_db: None,
    route_v1: Any,
    operator: Any,
    viewer: Any,
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    settings_env = {
        "ENDPOINT_ALLOWED_NETWORKS": LOOPBACK_AND_PRIVATE,
        "ENDPOINT_PROBE_TIMEOUT_S": str(DEADLINE_S),
    }
    worker = ControlPlaneWorker(tmp_path / "control-plane", redis_server.url, env=settings_env)
    asks, reads = make_token(operator, "operator").key, make_token(viewer, "viewer").key
    with stalling() as stalls, serve({**settings_env, "CELERY_BROKER_URL": redis_server.url,
                                      "ENDPOINT_PROBE_WAIT_S": "0.5"}) as server:  # fmt: skip
        worker.wait_ready()
        try:
            Endpoint.objects.create(
                route=route_v1, name="stalls", base_url=stalls, engine="vllm", expects="active"
            )
            # Nothing listens on port 9: probed at once. Asked twice together first, so both
            # web workers have loaded the app and connected to the broker before we measure.
            Endpoint.objects.create(route=route_v1, name="warm", base_url="http://127.0.0.1:9", engine="vllm",
                                    expects="active")  # fmt: skip
            answers: list[tuple[int, str, float]] = []

            def ask(name: str = "stalls") -> None:
                started = time.monotonic()
                with server.client(asks) as client:
                    response = client.post(URL + f"{name}/probe")
                answers.append((response.status_code, response.headers.get("Location", ""),
                                time.monotonic() - started))  # fmt: skip

            warming = [threading.Thread(target=ask, args=("warm",)) for _ in range(2)]
            for thread in warming:
                thread.start()
            for thread in warming:
                thread.join(30)
            assert len(answers) == 2, answers
            answers.clear()
            probing = [threading.Thread(target=ask) for _ in range(2)]
            for thread in probing:
                thread.start()
            time.sleep(0.2)  # both asks are in the two web workers now
            served = []
            with server.client(reads) as client:
                for path in (URL, URL + "stalls/", "/api/v1/routes/contract-summaries/"):
                    started = time.monotonic()
                    assert client.get(path).status_code == 200
                    served.append(time.monotonic() - started)
            for thread in probing:
                thread.join(30)
            print(f"viewer requests {served} s; probe asks {[round(a[2], 3) for a in answers]} s")
            # Each viewer request done well before one probe's deadline would have passed.
            assert max(served) < DEADLINE_S / 2, served
            assert [a[0] for a in answers] == [202, 202], answers
            assert all(a[2] < DEADLINE_S / 2 for a in answers), answers
            with server.client(reads) as client:  # viewers read them too
                ends_at = time.monotonic() + 4 * DEADLINE_S + 30
                for _, location, _ in answers:
                    read = client.get(location).json()
                    while read["state"] in ("queued", "running") and time.monotonic() < ends_at:
                        time.sleep(0.5)
                        read = client.get(location).json()
                    assert read["state"] == "done", read
                    assert read["probe"]["state"] == "unknown" and read["probe"]["actor"].startswith("token:")
                    assert "no complete answer within" in read["probe"]["reason"], read["probe"]["reason"]
        finally:
            worker.stop()
