"""The worker reports progress when it changes, plus a keep-alive (its answer is how a
cancel reaches the worker), not every time the harness ticks."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from worker.agent import task


class RecordingClient:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.phases: list[str] = []

    def progress(self, run_id: int, attempt: int, done: int, total: int, phase: str = "") -> dict[str, Any]:
        self.calls.append((done, total))
        self.phases.append(phase)
        return {}


def test_unchanged_progress_is_sent_only_as_a_keepalive(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = {"now": 100.0}
    monkeypatch.setattr(task.time, "monotonic", lambda: clock["now"])
    client = RecordingClient()
    report = task._progress_reporter(client, SimpleNamespace(run_id=1, attempt=1))  # type: ignore[arg-type]
    for _ in range(12):  # 0.0 s … 5.5 s
        report(3, 12)
        clock["now"] += 0.5
    report(4, 12)
    assert client.calls == [(3, 12), (3, 12), (4, 12)]  # first, one keep-alive after 5 s, the change


def test_a_phase_change_is_sent_at_once_and_kept_after(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(task.time, "monotonic", lambda: 100.0)
    client = RecordingClient()
    report = task._progress_reporter(client, SimpleNamespace(run_id=1, attempt=1))  # type: ignore[arg-type]
    report(0, 12, "engine_starting")
    report(0, 12, "engine_starting")  # unchanged: not sent again
    report(0, 12, "benchmarking")  # the same counts, a new phase: sent
    report(3, 12, "")  # a count without a phase keeps the last one
    assert client.calls == [(0, 12), (0, 12), (3, 12)]
    assert client.phases == ["engine_starting", "benchmarking", "benchmarking"]
