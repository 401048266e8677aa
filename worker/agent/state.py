"""Files the agent's processes share on the worker machine.

- `current-run.json`: written by the task process, read by the heartbeat thread in the
  main process (a prefork pool runs tasks in a child), so heartbeats say which run the
  worker is on; the control plane's sweep notices a worker that lost its run. It names the
  task process too: a process killed mid-run (-9: nothing of it runs its cleanup) leaves the
  file behind, and a heartbeat that went on reporting that run would hide the loss from the
  sweep forever (found by the chaos step, tests/chaos/).
- `results/run-<id>-attempt-<n>.json`: a finished result is saved before it is uploaded,
  so a retry or a redelivered task uploads it instead of benchmarking again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


class AgentState:
    def __init__(self, home: Path) -> None:
        self.home = home

    @property
    def _current(self) -> Path:
        return self.home / "current-run.json"

    def set_current(self, run_id: int, attempt: int, pid: int | None) -> None:
        """`pid`: the process running it (the run is reported while it lives); None: no
        process holds it (a result waiting for its upload retry), reported until cleared."""
        _write(self._current, {"id": run_id, "attempt": attempt, "pid": pid})

    def clear_current(self) -> None:
        self._current.unlink(missing_ok=True)

    def current(self) -> dict[str, int] | None:
        try:
            data = json.loads(self._current.read_text())
        except (OSError, ValueError):
            return None
        pid = data.get("pid")
        if pid is not None and not _alive(int(pid)):
            return None
        return {"id": int(data["id"]), "attempt": int(data["attempt"])}

    def _result(self, run_id: int, attempt: int) -> Path:
        return self.home / "results" / f"run-{run_id}-attempt-{attempt}.json"

    def save_result(self, run_id: int, attempt: int, outcome: dict[str, Any]) -> None:
        _write(self._result(run_id, attempt), outcome)

    def saved_result(self, run_id: int, attempt: int) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = json.loads(self._result(run_id, attempt).read_text())
            return data
        except (OSError, ValueError):
            return None

    def forget_result(self, run_id: int, attempt: int) -> None:
        self._result(run_id, attempt).unlink(missing_ok=True)
