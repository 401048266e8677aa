"""The advisor's values as JSON (what AdviceRun stores and the API and page read), and back.

Candidates and records round-trip exactly (floats as JSON numbers, samples as lists), so an
advisor rebuilt from stored records replays to the same state. A recommendation is stored
for reading only: besides what `Recommendation` holds, its dict carries per-candidate
speedup-vs-load points ("curves") and each candidate's assets and memory (the Pareto front),
which need the advisor's estimates and so are computed here once, when the lane finishes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from advice_app.strategy import BASELINE, Advisor, Candidate, Recommendation, Record, Samples
from advice_app.strategy.arms import Cells
from benchmarks_app.gate.crossover import find_crossover
from benchmarks_app.gate.result import Crossover

Json = dict[str, Any]
CANDIDATE_FIELDS = ("name", "method", "tokens", "assets", "memory_gib", "schedulable")
SAMPLE_FIELDS = ("ttft", "tpot", "e2e", "output_tokens")


def candidate_to_dict(c: Candidate, params: dict[str, Any] | None = None) -> Json:
    """`params`: the candidate's speculation parameters beyond method and tokens (e.g.
    prompt_lookup_min), which the strategy doesn't read but the runs and the draft use."""
    return {
        "name": c.name,
        "method": c.method,
        "tokens": c.tokens,
        "assets": c.assets,
        "memory_gib": c.memory_gib,
        "schedulable": c.schedulable,
        "params": dict(params or {}),
    }


def candidate_from_dict(d: Json) -> Candidate:
    """The strategy's Candidate (its `params` and `asset_entries`, the contract's asset
    entries the operator named, stay in the dict). Raises ValueError on a bad dict."""
    if not isinstance(d, dict):
        raise ValueError("a candidate must be an object")
    if d.get("name") == BASELINE.name and d.get("method") == BASELINE.method:
        return BASELINE
    unknown = set(d) - {*CANDIDATE_FIELDS, "params", "asset_entries"}
    if unknown:
        raise ValueError(f"unknown candidate fields: {', '.join(sorted(unknown))}")
    mem = d.get("memory_gib")
    return Candidate(
        name=d.get("name"),  # type: ignore[arg-type]
        method=d.get("method"),  # type: ignore[arg-type]
        tokens=d.get("tokens"),  # type: ignore[arg-type]
        assets=d.get("assets", 0),
        memory_gib=float(mem) if isinstance(mem, int | float) and not isinstance(mem, bool) else mem,
        schedulable=bool(d.get("schedulable", True)),
    )


def record_to_dict(r: Record) -> Json:
    s = r.samples
    out: Json = {"candidate": candidate_to_dict(r.candidate), "level": r.level}
    out["samples"] = {name: np.asarray(getattr(s, name)).tolist() for name in SAMPLE_FIELDS}
    out["samples"]["n_errors"] = s.n_errors
    out["samples"]["headroom_gib"] = s.headroom_gib
    return out


def record_from_dict(d: Json) -> Record:
    if not isinstance(d, dict) or not isinstance(d.get("samples"), dict):
        raise ValueError("a record must be an object with samples")
    cand = d.get("candidate")
    if not isinstance(cand, dict):
        raise ValueError("a record must name its candidate")
    c = candidate_from_dict(cand)
    s = d["samples"]
    samples = Samples(
        ttft=np.asarray(s.get("ttft", []), dtype=np.float64),
        tpot=np.asarray(s.get("tpot", []), dtype=np.float64),
        e2e=np.asarray(s.get("e2e", []), dtype=np.float64),
        output_tokens=np.asarray(s.get("output_tokens", []), dtype=np.float64),
        n_errors=s.get("n_errors", 0),
        headroom_gib=s.get("headroom_gib"),
    )
    return Record(c, float(d["level"]), samples)


def _num(x: float | None) -> float | None:
    """JSON has no NaN or infinity: an unknown number is null."""
    return None if x is None or not math.isfinite(x) else float(x)


def _crossover(cx: Crossover | None) -> Json | None:
    if cx is None:
        return None
    return {"level": cx.level, "reason": cx.reason, "metric": cx.metric, "confidence": cx.confidence}


def curves(adv: Advisor) -> dict[str, list[Json]]:
    """Per candidate, per level: the primary metric's speedup over the baseline with its
    interval (the gate's crossover points, at the improve rule's confidence) and n."""
    cells = Cells(adv.lane, adv.records)
    out: dict[str, list[Json]] = {}
    for c in adv.candidates:
        cx = find_crossover(
            adv.estimator(cells, c), adv.lane, "concurrency", list(adv.levels), adv.metric, adv.confidence
        )
        out[c.name] = [
            {
                "level": p.level,
                "speedup": _num(p.estimate),
                "ci_low": _num(p.ci_low),
                "ci_high": _num(p.ci_high),
                "beats_baseline": p.beats_baseline,
                "n": min(p.n_baseline, p.n_candidate) if p.n_baseline and p.n_candidate else None,
            }
            for p in cx.points
        ]
    return out


def recommendation_to_dict(rec: Recommendation, adv: Advisor | None = None) -> Json:
    """Everything the page and the API show for one lane. With the advisor that made it,
    also the curves and the candidates (name, method, tokens, assets, memory) for the front."""
    out: Json = {
        "lane": rec.lane,
        "verdict": rec.verdict,
        "chosen": candidate_to_dict(rec.chosen) if rec.chosen is not None else None,
        "value": _num(rec.value),
        "value_ci": [_num(x) for x in rec.value_ci] if rec.value_ci is not None else None,
        "crossover": _crossover(rec.crossover),
        "schedule": [
            {
                "from_level": s.from_level,
                "candidate": s.candidate.name,
                "method": s.candidate.method,
                "tokens": s.tokens,
            }
            for s in rec.schedule
        ],
        "tied": [
            {
                "candidate": t.other.name,
                "ratio": _num(t.ratio),
                "interval": [_num(t.ci_low), _num(t.ci_high)],
                "n": t.n,
                "requests_per_cell": t.requests_per_cell,
            }
            for t in rec.tied
        ],
        "dropped": [{"candidate": d.candidate.name, "reason": d.reason, "n": d.n} for d in rec.dropped],
        "confidence": rec.confidence,
        "requests_spent": rec.requests_spent,
        "budget": rec.budget,
        "finished": rec.finished,
        # Why measuring stopped; None: the budget ran out before the advisor decided.
        "stopped": rec.stopped,
        "summary": rec.summary,
    }
    if adv is not None:
        out["metric"] = adv.metric
        out["levels"] = list(adv.levels)
        out["curves"] = curves(adv)
        out["candidates"] = [
            {
                "name": c.name,
                "method": c.method,
                "tokens": c.tokens,
                "assets": c.assets,
                "memory_gib": c.memory_gib,
                "schedulable": c.schedulable,
            }
            for c in adv.candidates
        ]
    return out
