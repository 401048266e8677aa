"""Run a specification with the harness: both arms, the spec's interleaving, one
RunOutcome (worker/spec.py) at the end.

`abba_per_level` runs one harness plan per (level, arm). So that the levels don't reuse
each other's prompts (servers cache prompts) while both arms of a level get exactly the
same ones, the seeded prompt order of the whole run is cut into one slice per level
(warm-up + measured requests) and each slice is handed to the harness as its own JSONL
workload, named after the lane. `arm_blocks` runs one plan per arm over all levels (the
harness assigns prompts across levels itself).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from worker.agent import AGENT_VERSION
from worker.harness.plan import BenchPlan
from worker.harness.results import BenchResult
from worker.spec import ArmName, LoadLevel, RunSpec

Progress = Callable[[int, int], None]


class RunCancelled(Exception):
    """The control plane says the run is over (cancelled): stop, report nothing."""


def _lane_name(dataset: str) -> str:
    return dataset.removeprefix("builtin:")


def _level_workloads(spec: RunSpec, folder: Path) -> list[str]:
    """One JSONL file per level with that level's slice of the seeded prompt order."""
    from worker.harness.runner import assign_prompts
    from worker.workloads import load_workload

    workload = load_workload(_lane_name(spec.workload.dataset))
    per_level = spec.load.warmup_requests + spec.load.requests_per_level
    _, slices, _ = assign_prompts(
        workload, seed=spec.seed, warmup=0, per_level=[per_level] * len(spec.load.levels)
    )
    paths = []
    for i, prompts in enumerate(slices):
        path = folder / f"level-{i}" / f"{workload.name}.jsonl"
        path.parent.mkdir(parents=True)
        seen: set[str] = set()
        lines = []
        for p in prompts:
            if p.id in seen:  # a small prompt set wraps around; a file can't repeat an id
                continue
            seen.add(p.id)
            line: dict[str, Any] = {
                "id": p.id,
                "prompt": p.text,
                "lane": workload.name,
                "version": workload.version,
            }
            if workload.sampling is not None:
                line["sampling"] = workload.sampling.model_dump()
            lines.append(json.dumps(line))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def _plan(spec: RunSpec, arm: ArmName, levels: list[LoadLevel], workload: str) -> BenchPlan:
    concurrency = [lv.concurrency for lv in levels if lv.concurrency is not None]
    rates = [lv.rate for lv in levels if lv.rate is not None]
    return BenchPlan(
        engine=getattr(spec.arms, arm).engine,
        workload=workload,
        concurrency=concurrency or None,
        rates=rates or None,
        requests_per_level=spec.load.requests_per_level,
        max_tokens=spec.max_tokens,
        sampling=spec.sampling,
        seed=spec.seed,
        warmup_requests=spec.load.warmup_requests,
        request_timeout_s=spec.limits.request_timeout_s,
        slo=spec.slo,
        memory_headroom_min_gib=spec.memory_headroom_min_gib,
    )


def merge_arm(pieces: list[tuple[int, BenchResult]]) -> BenchResult:
    """One arm's results (one per level, or one for all) → one result, levels in order."""
    pieces = sorted(pieces, key=lambda p: p[0])
    results = [r for _, r in pieces]
    first, last = results[0], results[-1]
    merged = first.model_dump(mode="json")
    merged["levels"] = [lv.model_dump(mode="json") for r in results for lv in r.levels]
    merged["started_at"] = min(r.started_at for r in results).isoformat()
    merged["finished_at"] = max(r.finished_at for r in results).isoformat()
    merged["warnings"] = list(dict.fromkeys(w for r in results for w in r.warnings))
    peaks = [r.memory.peak_gib for r in results if r.memory.peak_gib is not None]
    merged["memory"]["after"] = last.memory.after.model_dump(mode="json") if last.memory.after else None
    merged["memory"]["peak_gib"] = max(peaks) if peaks else None
    headrooms = [r.headroom_gib for r in results if r.headroom_gib is not None]
    merged["headroom_gib"] = min(headrooms) if headrooms else None
    oks = [r.headroom_ok for r in results if r.headroom_ok is not None]
    merged["headroom_ok"] = all(oks) if oks else None
    return BenchResult.model_validate(merged)


def execute(spec: RunSpec, progress: Progress) -> dict[str, Any]:
    """Benchmark both arms; returns the RunOutcome as JSON-ready dict."""
    from worker.harness.runner import run_benchmark

    total = spec.total_requests
    done = 0
    progress(0, total)
    pieces: dict[ArmName, list[tuple[int, BenchResult]]] = {"baseline": [], "candidate": []}
    order: list[dict[str, Any]] = []

    def run_piece(arm: ArmName, level_indexes: list[int], workload: str) -> None:
        nonlocal done
        base = done
        levels = [spec.load.levels[i] for i in level_indexes]

        def live(p: Any) -> None:  # the harness's own progress, at most twice a second
            progress(min(base + p.done, total), total)

        started = datetime.now(UTC)
        result = run_benchmark(_plan(spec, arm, levels, workload), progress=live)
        finished = datetime.now(UTC)
        pieces[arm].append((level_indexes[0], result))
        for i in level_indexes:
            order.append(
                {
                    "level_index": i,
                    "arm": arm,
                    "started_at": started.isoformat(),
                    "finished_at": finished.isoformat(),
                }
            )
        done = base + len(level_indexes) * spec.load.requests_per_level
        progress(done, total)

    if spec.interleave == "arm_blocks" or _is_path(spec.workload.dataset):
        every = list(range(len(spec.load.levels)))
        workload = _lane_name(spec.workload.dataset)
        run_piece("baseline", every, workload)
        run_piece("candidate", every, workload)
    else:
        with tempfile.TemporaryDirectory(prefix="specpact-run-") as folder:
            files = _level_workloads(spec, Path(folder))
            for level_index, arm in spec.order():
                run_piece(arm, [level_index], files[level_index])
    return {
        "spec_version": spec.spec_version,
        "run_id": spec.run_id,
        "attempt": spec.attempt,
        "agent_version": AGENT_VERSION,
        "order": order,
        "baseline": merge_arm(pieces["baseline"]).model_dump(mode="json"),
        "candidate": merge_arm(pieces["candidate"]).model_dump(mode="json"),
    }


def _is_path(dataset: str) -> bool:
    return not dataset.startswith("builtin:")
