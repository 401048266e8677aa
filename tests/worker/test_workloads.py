"""The built-in lanes and user JSONL: versioned, unique, input-grounded, clear errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from worker.harness.runner import assign_prompts
from worker.workloads import LANES, WorkloadError, load_workload


@pytest.mark.parametrize("lane", LANES)
def test_each_lane_has_enough_distinct_versioned_prompts(lane: str) -> None:
    w = load_workload(lane)
    assert w.version == "1" and w.sampling is not None and w.max_tokens
    texts = [p.text for p in w.prompts]
    assert len(texts) >= 64 and len(set(texts)) == len(texts)


def test_greedy_lanes_and_the_sampled_chat_lane() -> None:
    assert load_workload("extraction").sampling.greedy  # type: ignore[union-attr]
    assert not load_workload("chat").sampling.greedy  # type: ignore[union-attr]


def test_extraction_answers_are_spans_of_the_input() -> None:
    for p in load_workload("extraction").prompts:
        blocks = p.text.split("Report:\n")[1:]
        assert len(blocks) == 2  # a worked example, then the case
        example_report, example_record = blocks[0].split("\n\nRecord:\n")
        for line in example_record.strip().splitlines():
            field, value = line.split(": ", 1)
            # Every value is copied from the report ("Opened" joins its date and time).
            parts = value.split(" ", 1) if field == "Opened" else value.split("; ")
            assert all(part in example_report for part in parts), (line, example_report)
        report, record = blocks[1].split("\n\nRecord:\n")
        incident = re.search(r"Incident ID: (INC-\d+-\d+)", record)
        assert incident and incident.group(1) in report and record.endswith("Root cause:")


def test_agent_prompts_are_multi_step_tool_transcripts() -> None:
    texts = [p.text for p in load_workload("agent").prompts]
    assert any("Step 3:" in t and "Observation:" in t for t in texts)
    assert all(t.rstrip().endswith("Thought:") for t in texts)


def test_user_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    f = tmp_path / "mine.jsonl"
    f.write_text('{"prompt": "fine"}\n\n{"prompt": ""}\n')
    with pytest.raises(WorkloadError, match=r"mine.jsonl line 3: prompt: String should have at least 1"):
        load_workload(str(f))
    f.write_text('{"prompt": "a"}\n{"prompt": "b", "colour": 1}\n')
    with pytest.raises(WorkloadError, match=r"line 2: colour: Extra inputs"):
        load_workload(str(f))
    f.write_text('{"prompt": "a"}\nnot json\n')
    with pytest.raises(WorkloadError, match=r"line 2: not valid JSON"):
        load_workload(str(f))
    f.write_text('{"id": "x", "prompt": "a"}\n{"id": "x", "prompt": "b"}\n')
    with pytest.raises(WorkloadError, match=r"line 2: duplicate id 'x'"):
        load_workload(str(f))
    with pytest.raises(WorkloadError, match="unknown workload"):
        load_workload("poetry")


def test_prompt_assignment_is_seeded_and_does_not_repeat_until_it_must() -> None:
    w = load_workload("summarization")
    warm, levels, repeated = assign_prompts(w, seed=3, warmup=2, per_level=[30, 30])
    ids = [p.id for p in warm] + [p.id for lv in levels for p in lv]
    assert len(set(ids)) == 62 and not repeated
    assert assign_prompts(w, seed=3, warmup=2, per_level=[30, 30])[1] == levels
    assert assign_prompts(w, seed=4, warmup=2, per_level=[30, 30])[1] != levels
    assert assign_prompts(w, seed=3, warmup=0, per_level=[200])[2] is True
