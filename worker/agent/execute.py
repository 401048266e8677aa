"""Run a specification with the harness: both arms, the spec's interleaving, one
RunOutcome (worker/spec.py) at the end.

`abba_per_level` and `alternating_blocks` run one harness plan per (level, arm, block)
(`abba_per_level`: one block per level). So that the levels don't reuse each other's
prompts (servers cache prompts) while both arms of a block get exactly the same ones, the
seeded order of the whole run's conversations is cut into one slice per level and block
(the level's warm-up joins its first block) and each slice is handed to the harness as its
own JSONL workload, named after the workload. An arm's blocks of a level are merged back
into one level (`merge_blocks`): requests in the order they ran, `send_s` on one clock from
the first block's start, the engine's counters summed. `arm_blocks` runs one plan per arm
over all levels (the harness assigns conversations across levels itself). The upload's
`order` lists every piece as it ran.

A registered workload (`workload:<name>@sha256:…`) arrives as a local file already
checked against its digest (worker/agent/workloads.py); the result names that digest.
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
from worker.harness.results.requests import RequestRecord
from worker.harness.results.result import BenchResult, WorkloadInfo
from worker.harness.results.speculation import Speculation, SpeculationReported
from worker.spec import ARMS, ArmName, LoadLevel, RunSpec
from worker.workloads import Conversation, Workload

# (done, total, phase): phase is the harness's `Progress.phase`, "" when unchanged.
Progress = Callable[[int, int, str], None]


class RunCancelled(Exception):
    """The control plane says the run is over (cancelled): stop, report nothing."""


def _lane_name(dataset: str) -> str:
    return dataset.removeprefix("builtin:")


def _records(workload: Workload, conv: Conversation) -> list[dict[str, Any]]:
    """A conversation back as SpecPact JSONL records (worker/workloads/records.py)."""
    out = []
    for k, turn in enumerate(conv.turns):
        line: dict[str, Any] = {"id": turn.id, "lane": workload.name, "version": workload.version}
        if turn.prompt is not None:
            line["prompt"] = turn.prompt
        elif turn.messages is not None:
            line["messages"] = [m.model_dump() for m in turn.messages]
        elif turn.synthetic is not None:
            line["synthetic_prompt"] = turn.synthetic.model_dump()
        if len(conv.turns) > 1:
            line["conversation"], line["turn"] = conv.id, k
        if turn.max_tokens is not None:
            line["max_tokens"] = turn.max_tokens
        if turn.arrival_s is not None:
            line["arrival_s"] = turn.arrival_s
        if workload.sampling is not None:
            line["sampling"] = workload.sampling.model_dump()
        out.append({k: v for k, v in line.items() if v is not None})
    return out


def _block_workloads(spec: RunSpec, folder: Path, source: str) -> list[list[str]]:
    """Per level, one JSONL file per block with that block's slice of the seeded
    conversation order (the level's warm-up requests first in its first block, then the
    measured ones; the plan keeps that order)."""
    from worker.harness.runner import ConversationStream
    from worker.workloads import load_workload

    workload = load_workload(source)
    stream = ConversationStream(workload, seed=spec.seed)
    paths: list[list[str]] = []
    for i in range(len(spec.load.levels)):
        level_paths = []
        for j, size in enumerate(spec.block_sizes(i)):
            chosen = (stream.warmup(spec.load.warmup_requests) if j == 0 else []) + stream.requests(size)
            path = folder / f"level-{i}" / f"block-{j}" / f"{workload.name}.jsonl"
            path.parent.mkdir(parents=True)
            seen: set[str] = set()
            lines = []
            for conv in chosen:
                if conv.id in seen:  # a small workload wraps around; a file can't repeat an id
                    continue
                seen.add(conv.id)
                lines += [json.dumps(r) for r in _records(workload, conv)]
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            level_paths.append(str(path))
        paths.append(level_paths)
    return paths


def _plan(
    spec: RunSpec,
    arm: ArmName,
    levels: list[LoadLevel],
    workload: str,
    *,
    sliced: bool,
    requests: int | None = None,
    warmup: int | None = None,
) -> BenchPlan:
    concurrency = [lv.concurrency for lv in levels if lv.concurrency is not None]
    rates = [lv.rate for lv in levels if lv.rate is not None]
    return BenchPlan(
        engine=getattr(spec.arms, arm).engine,
        workload=workload,
        concurrency=concurrency or None,
        rates=rates or None,
        requests_per_level=requests if requests is not None else spec.load.requests_per_level,
        max_tokens=spec.max_tokens,
        sampling=spec.sampling,
        seed=spec.seed,
        shuffle=not sliced,
        arrival="trace" if spec.workload.arrival == "trace" else "poisson",
        warmup_requests=warmup if warmup is not None else spec.load.warmup_requests,
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


def merge_blocks(results: list[BenchResult]) -> BenchResult:
    """One arm's blocks of one level (in the order they ran) → one result with one level.

    Requests keep their order; `send_s`/`scheduled_s` move onto the first block's clock by
    each block's start (blocks run one after another, so they stay increasing). The
    level's duration is the sum of the blocks' (the time this arm was being measured), so
    its per-second figures are this arm's own. Engine counters are summed over blocks;
    where one block reports none, the level says so with that block's reason.
    """
    if len(results) == 1:
        return results[0]
    from worker.harness.aggregate import build_level

    first = results[0]
    records: list[RequestRecord] = []
    for r in results:
        shift = (r.started_at - first.started_at).total_seconds()
        for rec in r.levels[0].requests:
            moved: dict[str, Any] = {"send_s": rec.send_s + shift}
            if rec.scheduled_s is not None:
                moved["scheduled_s"] = rec.scheduled_s + shift
            records.append(rec.model_copy(update=moved))
    levels = [r.levels[0] for r in results]
    head = levels[0]
    level = build_level(
        kind="concurrency" if head.concurrency is not None else "rate",
        value=float(head.concurrency if head.concurrency is not None else head.rate or 0),
        records=records,
        duration_s=sum(lv.duration_s for lv in levels),
        speculation=_summed_speculation([lv.speculation for lv in levels]),
        slo=first.slo,
        truncated=any(lv.truncated for lv in levels),
    )
    merged = merge_arm([(0, r) for r in results]).model_dump(mode="json")
    merged["levels"] = [level.model_dump(mode="json")]
    return BenchResult.model_validate(merged)


def _summed_speculation(parts: list[Speculation]) -> Speculation:
    """The engine's per-block figures as one level's: counters summed, rates recomputed."""
    missing = next((p for p in parts if not isinstance(p, SpeculationReported)), None)
    if missing is not None:
        return missing
    reported = [p for p in parts if isinstance(p, SpeculationReported)]

    def total(name: str) -> int | None:
        values = [getattr(p, name) for p in reported]
        return None if any(v is None for v in values) else sum(values)

    draft, accepted, drafts = total("draft_tokens"), total("accepted_tokens"), total("drafts")
    if draft is None or accepted is None:
        return reported[0]  # rates without counters can't be combined honestly: the first block's
    positions = [p.accepted_per_position for p in reported]
    per_position = None
    if all(x is not None for x in positions) and len({len(x or []) for x in positions}) == 1:
        per_position = [sum(col) for col in zip(*[x or [] for x in positions], strict=True)]
    rate = accepted / draft if draft else None
    length = 1 + accepted / drafts if drafts else None
    if rate is None and length is None:
        return reported[0]
    return SpeculationReported(
        acceptance_rate=rate,
        mean_acceptance_length=length,
        draft_tokens=draft,
        accepted_tokens=accepted,
        drafts=drafts,
        accepted_per_position=per_position,
        source=f"{reported[0].source} (summed over {len(reported)} blocks)"[:2000],
    )


def _whole_workload(spec: RunSpec, source: str, results: list[BenchResult]) -> dict[str, Any]:
    """What the arm measured on: a registered workload as a whole, with its digest (each
    piece ran on a slice of it)."""
    from worker.workloads import load_workload

    workload = load_workload(source)
    return WorkloadInfo(
        name=spec.workload.name or workload.name,
        version=workload.version,
        prompts=workload.requests,
        repeated_prompts=any(r.workload.repeated_prompts for r in results),
        digest=spec.workload.digest,
        conversations=len(workload.conversations) if workload.multi_turn else None,
    ).model_dump(mode="json")


def execute(spec: RunSpec, progress: Progress, workload_file: Path | None = None) -> dict[str, Any]:
    """Benchmark both arms; returns the RunOutcome as JSON-ready dict. `workload_file`: the
    registered workload of a `workload:` dataset, already checked against its digest."""
    from worker.harness.runner import run_benchmark

    if spec.workload.digest is not None and workload_file is None:
        raise ValueError("a registered workload's run needs its workload file")
    source = str(workload_file) if workload_file is not None else _lane_name(spec.workload.dataset)
    total = spec.total_requests
    done = 0
    progress(0, total, "")
    pieces: dict[ArmName, list[tuple[int, BenchResult]]] = {"baseline": [], "candidate": []}
    order: list[dict[str, Any]] = []

    blocks: dict[tuple[ArmName, int], list[BenchResult]] = {}

    def run_piece(
        arm: ArmName,
        level_indexes: list[int],
        workload: str,
        sliced: bool,
        block: tuple[int, int] | None = None,
    ) -> BenchResult:
        nonlocal done
        base = done
        levels = [spec.load.levels[i] for i in level_indexes]

        def live(p: Any) -> None:  # the harness's own progress, at most twice a second
            progress(min(base + p.done, total), total, p.phase)

        plan = _plan(spec, arm, levels, workload, sliced=sliced)
        if block is not None:  # (block index, its requests): the level's warm-up runs in block 0
            plan = _plan(
                spec,
                arm,
                levels,
                workload,
                sliced=sliced,
                requests=block[1],
                warmup=spec.load.warmup_requests if block[0] == 0 else 0,
            )
        started = datetime.now(UTC)
        result = run_benchmark(plan, progress=live)
        finished = datetime.now(UTC)
        for i in level_indexes:
            segment = {
                "level_index": i,
                "arm": arm,
                "started_at": started.isoformat(),
                "finished_at": finished.isoformat(),
            }
            if block is not None and spec.interleave == "alternating_blocks":
                segment |= {"block": block[0], "requests": block[1]}
            order.append(segment)
        done = base + (block[1] if block is not None else len(level_indexes) * spec.load.requests_per_level)
        progress(done, total, "")
        return result

    if spec.interleave == "arm_blocks" or _is_path(spec.workload.dataset):
        every = list(range(len(spec.load.levels)))
        for arm in ARMS:
            pieces[arm].append((0, run_piece(arm, every, source, False)))
    else:
        with tempfile.TemporaryDirectory(prefix="specpact-run-") as folder:
            files = _block_workloads(spec, Path(folder), source)
            for level_index, arm, j, size in spec.pieces():
                result = run_piece(arm, [level_index], files[level_index][j], True, (j, size))
                blocks.setdefault((arm, level_index), []).append(result)
        for (arm, level_index), results in blocks.items():
            pieces[arm].append((level_index, merge_blocks(results)))
    arms = {arm: merge_arm(pieces[arm]).model_dump(mode="json") for arm in ARMS}
    if spec.workload.digest is not None:
        for arm in ARMS:
            arms[arm]["workload"] = _whole_workload(spec, source, [r for _, r in pieces[arm]])
    return {
        "spec_version": spec.spec_version,
        "run_id": spec.run_id,
        "attempt": spec.attempt,
        "agent_version": AGENT_VERSION,
        "order": order,
        "baseline": arms["baseline"],
        "candidate": arms["candidate"],
    }


def _is_path(dataset: str) -> bool:
    """A JSONL path on the worker: the harness assigns its prompts across levels itself."""
    return not dataset.startswith(("builtin:", "workload:"))
