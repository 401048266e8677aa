"""Replay that matches the traffic, through the real harness against the reference server
(tests/worker/reference_server.py, which records every prompt it was sent): multi-turn
conversations sent turn by turn with the target's own answers in their history, each
turn measured; a shared system prompt; a trace's arrivals as an open-loop schedule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.runner import run_benchmark, trace_offsets
from worker.workloads import load_workload


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _conversations(path: Path, n: int = 2, turns: int = 3) -> Path:
    lines = []
    for c in range(n):
        for t in range(turns):
            messages = [{"role": "user", "content": f"conversation {c}, question {t}"}]
            if t == 0:
                messages.insert(0, {"role": "system", "content": "You answer for the Harbor support desk."})
            lines.append({"conversation": f"c{c}", "turn": t, "messages": messages, "max_tokens": 6})
    return _write(path, lines)


def _plan(server: Any, workload: Path, api: str = "chat", model: str = "ref", **extra: Any) -> BenchPlan:
    plan: dict[str, Any] = {
        "engine": {
            "kind": "openai",
            "base_url": server.base_url,
            "model": model,
            "api": api,
            "server": "vllm",
        },
        "workload": str(workload),
        "concurrency": [1],
        "requests_per_level": 6,
        "max_tokens": 16,
        "warmup_requests": 0,
    }
    return BenchPlan.model_validate(plan | extra)


def test_conversations_are_sent_turn_by_turn_with_the_targets_own_answers(
    reference_server, tmp_path: Path
) -> None:
    server = reference_server("--ttft-ms", "5", "--step-ms", "2", "--chunks", "4")
    server.reset_truth()
    result = run_benchmark(_plan(server, _conversations(tmp_path / "chat.jsonl")))
    BenchResult.model_validate(result.model_dump(mode="json"))
    level = result.levels[0]
    by_id = {r.prompt_id: r for r in level.requests}
    assert sorted(by_id) == ["c0#0", "c0#1", "c0#2", "c1#0", "c1#1", "c1#2"]  # every turn measured
    assert level.errors == 0 and all(r.ttft_ms is not None and r.tpot_ms is not None for r in level.requests)
    assert result.workload.conversations == 2 and result.workload.prompts == 6
    sent = [json.loads(t["prompt"]) for t in server.truth()]
    for conv in ("c0", "c1"):
        third = next(
            m for m in sent if len(m) == 6 and f"conversation {conv[1]}, question 2" in m[-1]["content"]
        )
        assert [m["role"] for m in third] == ["system", "user", "assistant", "user", "assistant", "user"]
        # The history holds what this server answered, not anything recorded elsewhere.
        assert third[2]["content"] == by_id[f"{conv}#0"].output_text
        assert third[4]["content"] == by_id[f"{conv}#1"].output_text
    # Usage counts the whole history: later turns read more.
    tokens = [by_id[f"c0#{t}"].prompt_tokens for t in range(3)]
    assert tokens[0] is not None and tokens[0] < tokens[1] < tokens[2]  # type: ignore[operator]


def test_over_the_completions_api_the_history_is_plain_text(reference_server, tmp_path: Path) -> None:
    server = reference_server("--ttft-ms", "5", "--step-ms", "2", "--chunks", "4")
    server.reset_truth()
    path = _conversations(tmp_path / "text.jsonl", n=1)
    result = run_benchmark(_plan(server, path, api="completions", requests_per_level=3))
    by_id = {r.prompt_id: r for r in result.levels[0].requests}
    conv = load_workload(str(path)).conversations[0]
    answers = [by_id["c0#0"].output_text, by_id["c0#1"].output_text]
    prompts = [t["prompt"] for t in server.truth()]
    assert prompts == [conv.prompt_text(k, answers[:k]) for k in range(3)]
    assert prompts[2].startswith("System: You answer for the Harbor support desk.\n\nUser: conversation 0")
    assert f"Assistant:{answers[0]}\nUser: conversation 0, question 1" in prompts[2]


def test_after_a_failed_turn_the_rest_of_the_conversation_is_not_sent(
    reference_server, tmp_path: Path
) -> None:
    server = reference_server("--ttft-ms", "5", "--step-ms", "2", "--chunks", "4")
    server.reset_truth()
    # "flaky": every second request the server gets answers 500, so turn 1 fails.
    result = run_benchmark(
        _plan(server, _conversations(tmp_path / "f.jsonl", n=1), model="flaky", requests_per_level=3)
    )
    by_id = {r.prompt_id: r for r in result.levels[0].requests}
    assert by_id["c0#0"].error is None and "HTTP 500" in (by_id["c0#1"].error or "")
    assert by_id["c0#2"].error == "not sent: the conversation's turn c0#1 failed"
    assert result.levels[0].requests_total == 3 and len(server.truth()) == 1


def test_many_requests_under_one_long_system_prompt_all_carry_it(reference_server, tmp_path: Path) -> None:
    server = reference_server("--ttft-ms", "5", "--step-ms", "2", "--chunks", "4")
    server.reset_truth()
    system = "You are the support desk of Harbor Calendars. Policy: " + "be kind and precise. " * 200
    lines = [
        {"messages": [{"role": "system", "content": system}, {"role": "user", "content": f"Question {i}?"}]}
        for i in range(8)
    ]
    result = run_benchmark(
        _plan(server, _write(tmp_path / "shared.jsonl", lines), concurrency=[4], requests_per_level=8)
    )
    assert result.levels[0].completed == 8
    sent = [json.loads(t["prompt"]) for t in server.truth()]
    assert len(sent) == 8 and all(m[0] == {"role": "system", "content": system} for m in sent)
    assert sorted(m[1]["content"] for m in sent) == sorted(f"Question {i}?" for i in range(8))


def test_a_traces_arrivals_are_an_open_loop_schedule_scaled_to_the_levels_rate(
    reference_server, tmp_path: Path
) -> None:
    server = reference_server("--ttft-ms", "5", "--step-ms", "2", "--chunks", "4")
    arrivals = [0.0, 0.5, 0.6, 1.5]
    lines = [{"id": f"r{i}", "prompt": f"traced request {i}", "arrival_s": a} for i, a in enumerate(arrivals)]
    path = _write(tmp_path / "trace.jsonl", lines)
    plan = _plan(
        server, path, api="completions", concurrency=None, rates=[4.0], arrival="trace", requests_per_level=4
    )
    result = run_benchmark(plan)
    records = sorted(result.levels[0].requests, key=lambda r: r.prompt_id)
    # Four arrivals at 4 req/s take 0.75 s: the 1.5 s trace is replayed at half its gaps.
    assert [r.scheduled_s for r in records] == pytest.approx([0.0, 0.25, 0.3, 0.75])
    assert all(r.error is None and 0 <= r.send_s - (r.scheduled_s or 0) < 0.5 for r in records)
    conv = load_workload(str(path)).conversations
    assert trace_offsets(conv, 1.0) == [(0.0,), (1.0,), (pytest.approx(1.2),), (3.0,)]


def test_a_conversations_later_turn_waits_for_its_answer_even_when_its_arrival_is_due(
    reference_server, tmp_path: Path
) -> None:
    server = reference_server("--ttft-ms", "50", "--step-ms", "20", "--chunks", "4")
    lines = [
        {"conversation": "a", "turn": 0, "prompt": "first", "arrival_s": 0.0},
        {"conversation": "a", "turn": 1, "prompt": "second", "arrival_s": 0.01},
        {"id": "b", "prompt": "other", "arrival_s": 0.02},
    ]
    plan = _plan(
        server, _write(tmp_path / "t.jsonl", lines), api="completions", concurrency=None, rates=[20.0],
        arrival="trace", requests_per_level=3,
    )  # fmt: skip
    by_id = {r.prompt_id: r for r in run_benchmark(plan).levels[0].requests}
    first, second = by_id["a#0"], by_id["a#1"]
    assert first.error is None and second.error is None
    assert second.send_s >= first.send_s + (first.e2e_ms or 0) / 1000 - 0.005
    # Due 10 ms after the first, sent once the first was answered: the wait shows as lag.
    assert second.scheduled_s == pytest.approx(first.scheduled_s + 0.01 * 2.5)
    assert second.send_s - second.scheduled_s > 0.05


def test_a_plan_asking_for_trace_arrivals_needs_a_trace(reference_server, tmp_path: Path) -> None:
    from worker.workloads import WorkloadError

    server = reference_server()
    path = _write(tmp_path / "no-times.jsonl", [{"prompt": "a"}, {"prompt": "b"}])
    plan = _plan(server, path, concurrency=None, rates=[1.0], arrival="trace", requests_per_level=2)
    with pytest.raises(WorkloadError, match="arrival 'trace' needs arrival_s"):
        run_benchmark(plan)
