"""`specpact wait` (and `submit --wait`) prints the run's phase and step as they change,
and a line at least every 15 s while nothing but the clocks move: no silent minute."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from specpact.cli import online


class Server:
    """The API's answers over a benchmark's life, one poll after another."""

    def __init__(self, words: list[str]) -> None:
        self.words, self.poll = words, -1

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        if path.startswith("releases/"):
            self.poll += 1
            done = self.poll >= len(self.words)
            return {"id": 7, "state": "awaiting_review" if done else "benchmarking", "gate_verdict": "pass"}
        words = self.words[min(self.poll, len(self.words) - 1)]
        progress = {"done": 5, "total": 64, "words": words}
        return {"results": [{"id": 3, "state": "running", "progress": progress}]}


def test_the_phase_is_printed_as_it_changes_and_at_least_every_15_seconds(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    clock = [0.0]
    monkeypatch.setattr(online.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(online.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + 5.0))
    monkeypatch.setattr(
        online, "release_lines", lambda release: [f"release {release['id']}: {release['state']}"]
    )
    words = [
        "the engine is starting and loading its model (3 s); baseline arm, level 1 of 2 (step 1 of 4), 3 s",
        "the engine is starting and loading its model (8 s); baseline arm, level 1 of 2 (step 1 of 4), 8 s",
        "the engine is starting and loading its model (13 s); baseline arm, level 1 of 2 (step 1 of 4), 13 s",
        "the engine is starting and loading its model (18 s); baseline arm, level 1 of 2 (step 1 of 4), 18 s",
        "baseline arm, level 1 of 2 (step 1 of 4), 23 s",
        "candidate arm, level 1 of 2 (step 2 of 4), 1 s; about 1 min 9 s left",
    ]
    args = argparse.Namespace(timeout=600, output="text", allow_marginal=False)
    online._wait(Server(words), 7, args)  # type: ignore[arg-type]
    lines = [line for line in capsys.readouterr().err.splitlines() if "run 3" in line]
    said = [line.split("] ", 1)[1] for line in lines]
    assert said[0].endswith(words[0])
    # Only the clocks moved for 15 s: one line then, not one per poll.
    assert [w for w in words[1:4] if any(s.endswith(w) for s in said)] == [words[3]]
    assert said[-2].endswith(words[4]) and said[-1].endswith(words[5])  # the phase, then the step changed
