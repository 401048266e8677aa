"""The heartbeat thread: runs in the agent's main process, beside the Celery consumer, so
it stops when the machine or the agent dies (the control plane then sees it go silent)."""

from __future__ import annotations

import logging
import os
import signal
import threading

from worker.agent.client import ApiClient, ApiError
from worker.agent.state import AgentState

log = logging.getLogger("specpact.worker.heartbeat")


def stop_agent(why: str, pid: int | None = None) -> None:
    """A revoked worker stops consuming at once (Celery's warm shutdown on SIGTERM to the
    agent's main process), so it takes no more messages it could only drop."""
    log.error("stopping the agent: %s", why)
    os.kill(pid or os.getpid(), signal.SIGTERM)


class Heartbeat(threading.Thread):
    def __init__(self, client: ApiClient, state: AgentState, interval_s: float) -> None:
        super().__init__(name="specpact-heartbeat", daemon=True)
        self.client, self.state, self.interval_s = client, state, interval_s
        self._stop_event = threading.Event()

    def beat(self) -> None:
        try:
            self.client.heartbeat(self.state.current())
        except ApiError as exc:
            if exc.status == 401:
                stop_agent(f"the control plane no longer accepts this worker's token ({exc.detail})")
                return
            # Keep beating: a control plane that is down now may be back at the next tick.
            log.warning("heartbeat not accepted: %s", exc)

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.beat()
            self._stop_event.wait(self.interval_s)

    def stop(self) -> None:
        self._stop_event.set()
