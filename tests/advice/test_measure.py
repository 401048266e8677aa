"""A run's stored result as the advisor's samples: per arm and level, with the memory
headroom where the gate reads it (a level's own, else the arm's run-wide one)."""

from __future__ import annotations

from typing import Any

from advice_app.measure import samples_of_run


def _level(concurrency: int, memory: dict[str, Any] | None = None) -> dict[str, Any]:
    ok = {"ttft_ms": 50.0, "tpot_ms": 8.0, "e2e_ms": 300.0, "output_tokens": 32, "error": None}
    failed = {"ttft_ms": None, "tpot_ms": None, "e2e_ms": None, "output_tokens": 0, "error": "HTTP 500"}
    level: dict[str, Any] = {"concurrency": concurrency, "requests": [ok, ok, failed]}
    if memory is not None:
        level["memory"] = memory
    return level


def test_headroom_is_the_levels_own_else_the_runs_else_unreported() -> None:
    payload = {
        "baseline": {"levels": [_level(1), _level(4)]},
        "candidate": {"headroom_gib": 7.5, "levels": [_level(1, {"headroom_gib": 3.25}), _level(4)]},
    }
    arms = samples_of_run(payload)
    assert arms["candidate"][1.0].headroom_gib == 3.25
    assert arms["candidate"][4.0].headroom_gib == 7.5
    assert arms["baseline"][1.0].headroom_gib is None
    s = arms["candidate"][1.0]
    assert (len(s.e2e), s.n_errors) == (2, 1)


def test_a_headroom_that_is_not_a_number_is_unreported() -> None:
    payload = {"candidate": {"headroom_gib": "lots", "levels": [_level(1, {"headroom_gib": True})]}}
    assert samples_of_run(payload)["candidate"][1.0].headroom_gib is None
