"""What the agent's heartbeat says it is running (worker/agent/state.py): the run of a task
process only while that process lives. A pool process killed mid-run (-9) runs no cleanup
and leaves its current-run file behind; reporting that run on would hide the loss from the
control plane's sweep forever (the chaos step found the run stuck `running`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from worker.agent.state import AgentState


def test_the_run_of_a_living_task_process_is_reported_and_of_a_killed_one_not(tmp_path: Path) -> None:
    state = AgentState(tmp_path)
    task_process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        state.set_current(7, 2, pid=task_process.pid)
        assert state.current() == {"id": 7, "attempt": 2}
        os.kill(task_process.pid, signal.SIGKILL)
        task_process.wait(10)  # reaped, as the pool's parent does
        assert state.current() is None
        assert (tmp_path / "current-run.json").exists()  # nothing cleaned it up: it was the bug
    finally:
        if task_process.poll() is None:
            task_process.kill()


def test_a_run_held_for_its_upload_retry_is_reported_until_cleared(tmp_path: Path) -> None:
    state = AgentState(tmp_path)
    state.set_current(7, 1, pid=None)  # no process holds it: the retry may run in any
    assert state.current() == {"id": 7, "attempt": 1}
    state.clear_current()
    assert state.current() is None
