"""`benchmarks/control_plane/compare.py`: today's scale beside x10, ratio by ratio, from
the two JSON reports `run.py` writes (issue 26, point 2: within 1.5x)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.control_plane.compare import print_comparison, rows


def _cell(endpoint: str, clients: int, cpu_ms: float, load: float = 2.0) -> dict[str, Any]:
    return {
        "endpoint": endpoint,
        "clients": clients,
        "server_cpu_ms_per_request": cpu_ms,
        "load_average_1m": load,
        "p95_ms": 10 * cpu_ms,
        "skipped": None,
    }


def _report(scale: str, fleet_ms: float, floor_ms: float, runs_ms: float) -> dict[str, Any]:
    return {
        "scale": scale,
        "cells": [
            _cell("page floor", 16, floor_ms),
            _cell("api floor", 16, floor_ms / 2),
            _cell("page fleet", 1, 999.0),  # not the 16-client cell: not the one compared
            _cell("page fleet", 16, fleet_ms),
            _cell("api runs", 16, runs_ms),
            {**_cell("api audit", 16, 5.0), "skipped": "a lower level had client timeouts"},
        ],
    }


def test_each_endpoint_is_held_to_its_own_floor_at_both_scales() -> None:
    today, x10 = _report("full", 30.0, 10.0, 10.0), _report("x10", 60.0, 15.0, 40.0)
    found = {r["endpoint"]: r for r in rows(today, x10)}
    assert set(found) == {"page fleet", "api runs"}  # floors and skipped cells are not rows
    fleet = found["page fleet"]
    assert (fleet["today_over_floor"], fleet["x10_over_floor"]) == (3.0, 4.0)
    assert round(fleet["growth"], 3) == 1.333 and fleet["met"]
    runs = found["api runs"]  # 2x the API floor today, 5.33x at x10: it grew with the data
    assert round(runs["growth"], 2) == 2.67 and not runs["met"]


def test_without_a_floor_it_compares_cpu_per_request_and_says_so(tmp_path: Path, capsys: Any) -> None:
    def no_floor(report: dict[str, Any]) -> dict[str, Any]:
        return {**report, "cells": [c for c in report["cells"] if "floor" not in c["endpoint"]]}

    today, x10 = tmp_path / "control_plane.json", tmp_path / "control_plane_x10.json"
    assert not print_comparison(today, x10)  # nothing to compare yet
    today.write_text(json.dumps(no_floor(_report("full", 30.0, 10.0, 10.0))))
    x10.write_text(json.dumps(no_floor(_report("x10", 36.0, 15.0, 40.0))))
    assert print_comparison(today, x10)
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("page fleet"))
    assert "1.20  met (CPU per request (no floor measured))" in line
    assert "MISSED" in next(x for x in out.splitlines() if x.startswith("api runs"))
