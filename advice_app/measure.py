"""Between an advice run and the advisor: the advisor rebuilt from what is stored, and a
benchmark run's result turned into the advisor's samples per arm and level."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from advice_app.models import AdviceRun
from advice_app.serialize import candidate_from_dict, record_from_dict
from advice_app.strategy import Advisor, Samples
from benchmarks_app.aggregates import level_scalars
from benchmarks_app.gate import GateRules
from benchmarks_app.gate.adapter import level_of, successful_requests
from benchmarks_app.spec_build import workloads_of


def lane_levels(advice: AdviceRun, lane: str) -> list[float]:
    """The lane's concurrency levels in the version the advice is based on."""
    workload = workloads_of(advice.based_on.document).get(lane) or {}
    return [float(c) for c in workload.get("concurrency") or []]


def advisor_for(advice: AdviceRun, lane: str) -> Advisor:
    """The lane's advisor in the state its stored records put it in (ValueError: settings
    it refuses, e.g. a budget below its first round)."""
    return Advisor(
        [candidate_from_dict(c) for c in advice.candidates],
        lane_levels(advice, lane),
        GateRules.from_measurement(advice.based_on.document.get("measurement") or {}),
        advice.budget,
        advice.seed,
        lane=lane,
        records=[record_from_dict(r) for r in advice.records.get(lane, [])],
        **{k: v for k, v in advice.options.items() if k in ("looks", "n_start", "n_boot")},
    )


def _number(value: Any) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    )


def _headroom(level: Mapping[str, Any], arm: Mapping[str, Any]) -> float | None:
    """The level's own memory headroom, else the arm's run-wide one (GiB), where the gate
    reads them (benchmarks_app/gate/adapter.py's `_memory`); None: not reported."""
    own = level_scalars(level)["headroom_gib"]
    if own is not None:
        return float(own)
    run = arm.get("headroom_gib")
    return float(run) if run is not None and _number(run) else None


def _level_samples(level: Mapping[str, Any], arm: Mapping[str, Any]) -> Samples:
    requests = level.get("requests") or []
    ok = successful_requests(requests)
    # The advisor's samples are aligned per request: a request without all three latencies
    # (a one-token answer has no TPOT) is left out, as the gate leaves it out of that metric;
    # it did not fail, so it is not counted as an error either.
    full = [r for r in ok if all(_number(r.get(k)) for k in ("ttft_ms", "tpot_ms", "e2e_ms"))]
    tokens = [r.get("output_tokens") for r in full]
    return Samples(
        ttft=np.array([r["ttft_ms"] for r in full], dtype=np.float64),
        tpot=np.array([r["tpot_ms"] for r in full], dtype=np.float64),
        e2e=np.array([r["e2e_ms"] for r in full], dtype=np.float64),
        output_tokens=np.array(tokens, dtype=np.float64) if all(_number(t) for t in tokens) else np.empty(0),
        n_errors=len(requests) - len(ok),
        headroom_gib=_headroom(level, arm),
    )


def samples_of_run(payload: Mapping[str, Any]) -> dict[str, dict[float, Samples]]:
    """arm → concurrency level → the arm's samples at it, from a run's stored result
    (each arm's harness result, as the gate reads it: benchmarks_app/gate/adapter.py)."""
    out: dict[str, dict[float, Samples]] = {}
    for arm in ("baseline", "candidate"):
        levels: dict[float, Samples] = {}
        result = payload.get(arm) or {}
        for level in result.get("levels") or []:
            kind, value = level_of(level)
            if kind == "concurrency":
                levels[value] = _level_samples(level, result)
        out[arm] = levels
    return out
