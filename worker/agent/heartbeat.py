"""The heartbeat thread: runs in the agent's main process, beside the Celery consumer, so
it stops when the machine or the agent dies (the control plane then sees it go silent)."""

from __future__ import annotations

import logging
import threading

from worker.agent.client import ApiClient, ApiError
from worker.agent.state import AgentState

log = logging.getLogger("specpact.worker.heartbeat")


class Heartbeat(threading.Thread):
    def __init__(self, client: ApiClient, state: AgentState, interval_s: float) -> None:
        super().__init__(name="specpact-heartbeat", daemon=True)
        self.client, self.state, self.interval_s = client, state, interval_s
        self._stop_event = threading.Event()

    def beat(self) -> None:
        try:
            self.client.heartbeat(self.state.current())
        except ApiError as exc:
            # Keep beating: a control plane that is down now may be back at the next tick.
            level = logging.ERROR if exc.status in (401, 403) else logging.WARNING
            log.log(level, "heartbeat not accepted: %s", exc)

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.beat()
            self._stop_event.wait(self.interval_s)

    def stop(self) -> None:
        self._stop_event.set()
