"""The gate and the aggregates read the harness's real result JSON.

The results are built with the harness's own models (`worker.harness`), validated, and
dumped to JSON exactly as a worker uploads them, so a change of shape there fails here.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np

from benchmarks_app.aggregates import aggregate_result
from benchmarks_app.gate import GateRules, Verdict, evaluate_gate, gate_input_from_harness
from dashboard_app.charts import memory_by_level, release_figures, tokens_per_chunk
from worker.harness.aggregate import build_level
from worker.harness.results.requests import RequestRecord
from worker.harness.results.result import (
    BenchResult,
    EngineInfo,
    HardwareFacts,
    MemoryReport,
    Sampling,
    WorkloadInfo,
)
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported
from worker.harness.stability import compare_outputs

TOKENS = 33


def record(rng: np.random.Generator, i: int, *, per_token_ms: float, tokens_per_chunk: int) -> RequestRecord:
    ttft = float(rng.lognormal(np.log(120), 0.2))
    chunks = [tokens_per_chunk] * ((TOKENS - 1) // tokens_per_chunk)
    chunks = [1, *chunks, TOKENS - 1 - sum(chunks)] if sum(chunks) < TOKENS - 1 else [1, *chunks]
    gaps = rng.lognormal(np.log(per_token_ms), 0.15, len(chunks) - 1) * np.array(chunks[1:])
    offsets = (ttft + np.concatenate([[0.0], np.cumsum(gaps)])).tolist()
    e2e = offsets[-1]
    return RequestRecord(
        prompt_id=f"p{i}",
        send_s=i * 0.1,
        ttft_ms=ttft,
        tpot_ms=(e2e - ttft) / (TOKENS - 1),
        e2e_ms=e2e,
        chunk_offsets_ms=offsets,
        chunk_tokens=chunks,
        chunk_tokens_source="token_ids",
        output_tokens=TOKENS,
        output_tokens_source="usage",
        output_token_ids=list(range(TOKENS)),
    )


def bench_result(rng: np.random.Generator, *, speculative: bool) -> dict:
    levels = []
    for concurrency in (1, 4):
        records = [
            record(
                rng, i, per_token_ms=40 if not speculative else 25, tokens_per_chunk=3 if speculative else 1
            )
            for i in range(40)
        ]
        records.append(RequestRecord(prompt_id="x", send_s=5.0, error="HTTP 500"))
        spec = (
            SpeculationReported(acceptance_rate=0.7, mean_acceptance_length=2.8, source="test")
            if speculative
            else SpeculationNotReported()
        )
        levels.append(
            build_level(
                kind="concurrency",
                value=concurrency,
                records=records,
                duration_s=20.0,
                speculation=spec,
                slo=None,
                truncated=False,
            )
        )
    now = datetime.now(UTC)
    result = BenchResult(
        harness_version="test",
        engine=EngineInfo(kind="openai", model="m"),
        workload=WorkloadInfo(name="chat", prompts=40),
        sampling=Sampling(),
        max_tokens=64,
        seed=1,
        warmup_requests=0,
        hardware=HardwareFacts(hostname="h", cpu_model="c", cpu_cores=2, memory_gib=8),
        memory=MemoryReport(peak_gib=70.0 if speculative else 66.0),
        headroom_gib=9.0 if speculative else 13.0,
        started_at=now,
        finished_at=now,
        levels=levels,
    )
    return json.loads(result.model_dump_json())


def test_a_real_shaped_result_goes_through_the_gate_aggregates_and_charts():
    rng = np.random.default_rng(1)
    base, cand = bench_result(rng, speculative=False), bench_result(rng, speculative=True)
    report = compare_outputs(
        [RequestRecord.model_validate(r) for r in base["levels"][0]["requests"]],
        [RequestRecord.model_validate(r) for r in cand["levels"][0]["requests"]],
    )
    data = gate_input_from_harness(
        baseline={"chat": base}, candidate={"chat": cand}, stability={"chat": report.model_dump()}
    )
    assert data.memory.headroom_gib == 9.0 and data.memory.peak_gib == 70.0
    assert data.stability["chat"].compared == 40 and data.stability["chat"].exact_match_rate == 1.0
    first = data.candidate[0]
    assert (first.n_requests, first.n_errors, len(first.samples["itl_chunk"])) == (41, 1, 40 * 11)

    gate = evaluate_gate(
        data,
        GateRules.from_measurement(
            {
                "workloads": {"chat": {"dataset": "builtin:chat", "concurrency": [1, 4]}},
                "improve": [{"metric": "tpot_p50", "min_ratio": 1.2, "confidence": 0.95}],
                "output_stability": {"greedy_exact_match_min": 0.99},
                "memory_headroom_min_gib": 4,
            }
        ),
    ).as_dict()
    assert gate["verdict"] == Verdict.PASS, gate["summary"]

    aggs_b, aggs_c = aggregate_result(base), aggregate_result(cand)
    level = aggs_c[0]
    assert level["metrics"]["itl_chunk_ms"]["count"] == 440
    assert level["metrics"]["tokens_per_chunk"]["mean"] > 2.5
    assert level["scalars"]["acceptance_rate"] == 0.7 and level["scalars"]["memory_scope"] == "run"
    assert aggs_b[0]["scalars"]["acceptance_rate"] is None

    memory = memory_by_level(aggs_b, aggs_c, lane="chat", min_headroom_gib=4)
    assert [t["x"] for t in memory["data"]] == [["whole run"], ["whole run"]]
    assert tokens_per_chunk(aggs_b, aggs_c, lane="chat")["data"][0]["y"] == [1, 1]
    figures = release_figures(baseline={"chat": aggs_b}, candidate={"chat": aggs_c}, gate=gate)
    assert len(figures) == 8  # acceptance by draft position too, "not reported" here
