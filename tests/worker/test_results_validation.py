"""Impossible results are refused with the path of the bad field (the upload check)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.support.prompts import write_prompts
from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.runner import run_benchmark


@pytest.fixture(scope="module")
def good(reference_server, tmp_path_factory) -> dict[str, Any]:
    server = reference_server("--ttft-ms", "5", "--step-ms", "2")
    workload = write_prompts(Path(tmp_path_factory.mktemp("w")) / "p.jsonl", 12)
    plan = BenchPlan.model_validate(
        {
            "engine": {"kind": "openai", "base_url": server.base_url, "model": "ref", "server": "vllm"},
            "workload": str(workload),
            "concurrency": [2, 4],
            "requests_per_level": 4,
            "max_tokens": 32,
            "warmup_requests": 1,
            "slo": {"ttft_ms": 1000},
        }
    )
    return run_benchmark(plan).model_dump(mode="json")


def _refused(data: dict[str, Any], **context: Any) -> str:
    with pytest.raises(ValidationError) as info:
        BenchResult.model_validate(data, context=context or None)
    return str(info.value)


def test_a_real_result_round_trips(good: dict[str, Any]) -> None:
    again = BenchResult.model_validate(good).model_dump(mode="json")
    assert again == good
    level = good["levels"][0]
    for key in ("ttft_ms", "tpot_ms", "itl_chunk_ms", "e2e_ms"):
        assert set(level[key]) == {"mean", "p50", "p90", "p95", "p99"}
    assert set(level["tokens_per_chunk"]) == {"mean", "p50", "max"}
    assert level["goodput_requests_per_s"] == level["requests_per_s"]  # all within a 1 s TTFT


def test_negative_latency_is_refused_with_its_path(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    bad["levels"][1]["requests"][2]["ttft_ms"] = -3.0
    assert "levels.1.requests.2.ttft_ms" in _refused(bad)


def test_ttft_after_the_end_is_refused(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    r = bad["levels"][0]["requests"][0]
    r["ttft_ms"] = r["e2e_ms"] + 5
    message = _refused(bad)
    assert "levels.0.requests.0" in message and "after e2e_ms" in message


def test_chunk_tokens_that_do_not_add_up_are_refused(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    bad["levels"][0]["requests"][1]["chunk_tokens"][0] += 1
    assert "chunk_tokens sum to" in _refused(bad)


def test_more_tokens_than_max_tokens_is_refused(good: dict[str, Any]) -> None:
    # The contract's limit, given by the control plane, against the result's own plan...
    assert "max_tokens 32 exceeds the allowed 8" in _refused(copy.deepcopy(good), max_tokens=8)
    # ...and each request against the result's max_tokens, with the request's path.
    bad = copy.deepcopy(good)
    bad["max_tokens"] = 4
    message = _refused(bad)
    assert "levels.0.requests.0: output_tokens" in message and "exceeds max_tokens (4)" in message


def test_aggregates_that_do_not_match_the_requests_are_refused(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    bad["levels"][0]["tpot_ms"]["p50"] *= 0.5  # a flattering median
    assert "tpot_ms does not match the request records" in _refused(bad)
    bad = copy.deepcopy(good)
    bad["levels"][0]["errors"] = 0
    bad["levels"][0]["requests"][0]["error"] = "HTTP 500: boom"
    assert "errors differs" in _refused(bad)


def test_invented_speculation_is_refused(good: dict[str, Any]) -> None:
    bad = copy.deepcopy(good)
    bad["levels"][0]["speculation"] = {"reported": True, "acceptance_rate": 1.7, "source": "me"}
    assert "levels.0.speculation" in _refused(bad)
