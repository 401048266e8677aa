"""One deadline per probe, all its requests together (connect, headers, body): a stalling
endpoint and a trickling one end at it, and no thread outlives it; beat's scheduled
probes run side by side, so a stalling endpoint does not hold the others back."""

from __future__ import annotations

import threading
import time
from typing import Any

from live_app.models import Endpoint, Probe
from live_app.services import endpoint_probe
from live_app.tasks import probe_endpoints
from tests.live.conftest import vllm_claim
from tests.support.slow_servers import stalling, trickling

DEADLINE_S = 1


def _endpoint(route: Any, name: str, base_url: str) -> Endpoint:
    return Endpoint.objects.create(route=route, name=name, base_url=base_url, engine="vllm", expects="active")


def test_a_stalling_and_a_trickling_endpoint_end_at_the_deadline_and_leave_no_thread(
    route_v1: Any, settings: Any
) -> None:
    settings.ENDPOINT_PROBE_TIMEOUT_S = DEADLINE_S
    before = threading.active_count()
    with stalling() as stalls, trickling() as trickles:
        serving = threading.active_count()  # the two fake servers' own threads
        for name, url in (("stalls", stalls), ("trickles", trickles)):
            started = time.monotonic()
            probe = endpoint_probe(endpoint=_endpoint(route_v1, name, url))
            took = time.monotonic() - started
            assert took < DEADLINE_S + 0.5, (name, took)
            assert probe.state == "unknown" and not probe.reached
            assert "no complete answer within" in probe.reason, probe.reason
            assert f"the probe's {DEADLINE_S} s were spent" in probe.reason, probe.reason
        # The trickling server still writes; none of the probe's threads reads it any more.
        left = [t.name for t in threading.enumerate()]
        assert threading.active_count() <= serving + 1, left  # +1: one trickle handler
        assert not any(name.startswith(("specpact-outbound", "probe")) for name in left), left
    time.sleep(0.3)
    assert threading.active_count() <= before + 1, [t.name for t in threading.enumerate()]


def test_beat_probes_endpoints_side_by_side_and_a_stalling_one_holds_back_no_other(
    route_v1: Any, settings: Any, emulator: Any
) -> None:
    settings.ENDPOINT_PROBE_TIMEOUT_S = 2
    settings.ENDPOINT_PROBE_CONCURRENCY = 4
    engine = emulator(*vllm_claim(), env={"VLLM_SERVER_DEV_MODE": "1"})
    with stalling() as stalls:
        for name in ("a-stalls", "b-stalls", "c-stalls"):
            _endpoint(route_v1, name, stalls)
        _endpoint(route_v1, "z-answers", engine.base_url)
        started = time.monotonic()
        assert probe_endpoints() == 4
        took = time.monotonic() - started
    # One after another: 3 × 2 s at least. Side by side: one deadline.
    assert took < 2 * settings.ENDPOINT_PROBE_TIMEOUT_S, took
    stored = list(Probe.objects.order_by("id").values_list("endpoint__name", "state", "actor"))
    assert stored[0] == ("z-answers", "conforms", "beat")  # stored as soon as it ended
    assert {s[1] for s in stored[1:]} == {"unknown"} and {s[2] for s in stored} == {"beat"}
