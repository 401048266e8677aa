"""A misbehaving server never crashes a run: each failure is a request's error, counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.launcher import reserved_port
from tests.support.prompts import write_prompts
from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.runner import run_benchmark

FAST = ("--ttft-ms", "5", "--step-ms", "2")


def _run(base_url: str, model: str, workload: Path, **overrides: object) -> BenchResult:
    plan = BenchPlan.model_validate(
        {
            "engine": {"kind": "openai", "base_url": base_url, "model": model, "server": "vllm"},
            "workload": str(workload),
            "concurrency": [4],
            "requests_per_level": 8,
            "max_tokens": 32,
            "warmup_requests": 0,
            "stall_timeout_s": 1.0,
            **overrides,
        }
    )
    result = run_benchmark(plan)
    # The result is still a valid upload: the control plane would accept it.
    return BenchResult.model_validate(result.model_dump(mode="json"))


@pytest.fixture(scope="module")
def bad_server(reference_server):
    return reference_server(*FAST)


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("http500", "HTTP 500"),
        ("garbage", "malformed SSE data"),
        ("drop", "stream dropped"),
        ("stall", "stalled: no data for 1 s"),
        ("notsse", "not an SSE stream"),
        ("error-event", "server error in stream: engine crashed"),
    ],
)
def test_every_failed_request_is_recorded_and_the_run_completes(
    bad_server, tmp_path: Path, mode: str, message: str
) -> None:
    result = _run(bad_server.base_url, mode, write_prompts(tmp_path / "p.jsonl", 8))
    level = result.levels[0]
    assert level.requests_total == 8 and level.errors == 8 and level.error_rate == 1.0
    assert all(message in (r.error or "") for r in level.requests), [r.error for r in level.requests]
    assert level.ttft_ms is None and level.output_tokens_per_s == 0


def test_a_stream_without_usage_or_token_ids_is_an_error_not_a_guess(bad_server, tmp_path: Path) -> None:
    result = _run(bad_server.base_url, "nousage", write_prompts(tmp_path / "p.jsonl", 8))
    level = result.levels[0]
    assert level.errors == 8
    assert all("no token count" in (r.error or "") for r in level.requests)


def test_half_the_requests_failing_gives_half_an_error_rate(bad_server, tmp_path: Path) -> None:
    result = _run(bad_server.base_url, "flaky", write_prompts(tmp_path / "p.jsonl", 8))
    level = result.levels[0]
    assert level.errors == 4 and level.completed == 4 and level.error_rate == 0.5
    assert level.ttft_ms is not None  # the successful half is still measured


def test_a_server_that_is_not_there_is_a_connection_error(tmp_path: Path) -> None:
    with reserved_port() as port:  # bound, never listening: connections are refused
        result = _run(f"http://127.0.0.1:{port}", "ref", write_prompts(tmp_path / "p.jsonl", 8))
    assert result.levels[0].errors == 8
    assert all("connection error" in (r.error or "") for r in result.levels[0].requests)


def test_a_server_sending_more_tokens_than_max_tokens_is_an_error(reference_server, tmp_path: Path) -> None:
    # The reference server honours max_tokens; ask the harness for fewer than it sends by
    # passing a larger max_tokens to the server through extra_body.
    server = reference_server(*FAST)
    plan_overrides = {"max_tokens": 8}
    plan = BenchPlan.model_validate(
        {
            "engine": {
                "kind": "openai",
                "base_url": server.base_url,
                "model": "ref",
                "server": "vllm",
                "extra_body": {"max_tokens": 40},
            },
            "workload": str(write_prompts(tmp_path / "p.jsonl", 4)),
            "concurrency": [2],
            "requests_per_level": 4,
            "warmup_requests": 0,
            **plan_overrides,
        }
    )
    level = run_benchmark(plan).levels[0]
    assert level.errors == 4
    assert all("more than max_tokens 8" in (r.error or "") for r in level.requests)


def test_a_server_closing_keep_alive_connections_after_each_stream_costs_no_request(
    bad_server, tmp_path: Path
) -> None:
    # llama-server closes the connection after a streamed response; the next request on
    # that pooled connection gets no response and is sent again on a fresh one.
    result = _run(bad_server.base_url, "close-after", write_prompts(tmp_path / "p.jsonl", 8), concurrency=[1])
    assert result.levels[0].errors == 0 and result.levels[0].completed == 8
