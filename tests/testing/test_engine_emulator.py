"""The engine emulator serves what each engine serves, and its counters are exactly what
it streamed: the tests built on it (harness, probes, acceptance watch) rely on both."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.launcher import Emulator
from tests.support.prompts import write_prompts
from worker.harness.acceptance import sglang as sglang_acceptance
from worker.harness.acceptance.prometheus import parse
from worker.harness.plan import BenchPlan
from worker.harness.results.speculation import SpeculationReported
from worker.harness.runner import run_benchmark

NGRAM5 = json.dumps({"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 5})
Start = Callable[..., Emulator]


def stream(emulator: Emulator, body: dict[str, Any], path: str = "/v1/completions") -> list[dict[str, Any]]:
    """Every SSE event of one streamed request, [DONE] left out."""
    payload = {"model": "test-model", "prompt": "p", "max_tokens": 16, "stream": True, **body}
    with httpx.stream("POST", emulator.base_url + path, json=payload, timeout=30) as resp:
        assert resp.status_code == 200, resp.read()
        data = [line[len("data: ") :] for line in resp.iter_lines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    return [json.loads(d) for d in data[:-1]]


def counters(emulator: Emulator) -> dict[str, float]:
    """Each metric summed over its series, a counter's `_total` left off."""
    metrics = parse(emulator.metrics())
    return {name.removesuffix("_total"): metrics.total(name) or 0.0 for name in metrics.samples}


def test_vllm_counts_a_step_of_k_tokens_as_one_draft_with_k_minus_1_accepted(emulator: Start) -> None:
    vllm = emulator("--pattern", "1,3,6", "--speculation", NGRAM5)
    events = stream(vllm, {"max_tokens": 20, "return_token_ids": True})
    assert [len(e["choices"][0]["token_ids"]) for e in events] == [1, 3, 6, 1, 3, 6]
    assert events[-1]["choices"][0]["finish_reason"] == "length"
    got = counters(vllm)
    assert got["vllm:spec_decode_num_drafts"] == 6
    assert got["vllm:spec_decode_num_draft_tokens"] == 6 * 5
    assert got["vllm:spec_decode_num_accepted_tokens"] == 2 * (0 + 2 + 5)
    per_pos = {line.split("position=")[1][1]: float(line.split()[-1]) for line in vllm.metrics().splitlines()
               if line.startswith("vllm:spec_decode_num_accepted_tokens_per_pos_total")}  # fmt: skip
    assert per_pos == {"0": 4.0, "1": 4.0, "2": 2.0, "3": 2.0, "4": 2.0}


def test_vllm_without_speculation_has_no_spec_counters_and_no_server_info(emulator: Start) -> None:
    vllm = emulator("--pattern", "2")
    events = stream(vllm, {"max_tokens": 4})
    assert [e["choices"][0]["text"].count(" w") for e in events] == [2, 2]
    assert "token_ids" not in events[0]["choices"][0]  # only when asked
    assert not any(name.startswith("vllm:spec_decode") for name in counters(vllm))
    assert counters(vllm)["vllm:generation_tokens"] == 4
    assert vllm.get("/server_info")[0] == 404  # only in dev mode
    assert vllm.get_json("/v1/models")["data"][0]["id"] == "test-model"


def test_vllm_in_dev_mode_says_its_speculative_config(emulator: Start) -> None:
    vllm = emulator("--speculation", NGRAM5, env={"VLLM_SERVER_DEV_MODE": "1"})
    text = vllm.get_json("/server_info")["vllm_config"]
    assert "speculative_config=SpeculativeConfig(method='ngram', model=None, num_spec_tokens=5)" in text
    config = vllm.get_json("/server_info?config_format=json")["vllm_config"]
    assert config["speculative_config"] == json.loads(NGRAM5)
    assert vllm.get("/server_info?config_format=yaml")[0] == 400


def test_sglang_reports_its_server_args_and_acceptance_per_dp_rank(emulator: Start) -> None:
    claim = {
        "speculative_algorithm": "EAGLE",
        "speculative_draft_model_path": "heads/eagle",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
    }
    sglang = emulator(
        "--shape", "sglang", "--dp-size", "2", "--pattern", "4,2", "--speculation", json.dumps(claim)
    )
    info = sglang.get_json("/server_info")
    assert {k: info[k] for k in claim} == claim and info["dp_size"] == 2
    assert [s.keys() & {"avg_spec_accept_length"} for s in info["internal_states"]] == [set(), set()]
    stream(sglang, {"max_tokens": 6})  # rank 0: steps of 4 and 2
    stream(sglang, {"max_tokens": 4})  # rank 1: one step of 4
    states = sglang.get_json("/get_server_info")["internal_states"]  # the deprecated alias
    assert [s["avg_spec_accept_length"] for s in states] == [3.0, 4.0]
    got = sglang_acceptance.from_server_info(info, sglang.get_json("/get_server_info"))
    assert got.reported and got.mean_acceptance_length_by_rank == [3.0, 4.0]
    assert sglang.get("/metrics")[0] == 404  # only with --enable-metrics


def test_sglang_with_metrics_enabled_exposes_its_spec_gauges(emulator: Start) -> None:
    claim = json.dumps({"speculative_algorithm": "NGRAM", "speculative_num_draft_tokens": 5})
    sglang = emulator("--shape", "sglang", "--enable-metrics", "--pattern", "3,1", "--speculation", claim)
    stream(sglang, {"max_tokens": 8})  # steps 3,1,3,1: 4 of 16 drafted accepted, 2 tokens per step
    got = counters(sglang)
    assert got["sglang:spec_accept_length"] == 2.0 and got["sglang:spec_accept_rate"] == 4 / 16


def test_llamacpp_streams_one_event_per_token_and_times_its_drafts(emulator: Start) -> None:
    claim = json.dumps({"speculative.types": "none,ngram-simple", "speculative.n_max": 4})
    llama = emulator("--shape", "llamacpp", "--metrics", "--pattern", "1,4,2", "--speculation", claim)
    assert llama.get_json("/props")["default_generation_settings"]["params"]["speculative.n_max"] == 4
    assert "params" not in llama.get_json("/slots")[0]  # shown once the slot has served a task
    events = stream(llama, {"max_tokens": 7, "stream_options": {"include_usage": True}})
    assert [e["choices"][0]["text"].count(" w") for e in events[:-1]] == [1] * 7  # one token each
    final = events[-1]
    assert final["choices"][0]["finish_reason"] == "length" and final["usage"]["completion_tokens"] == 7
    assert final["timings"]["draft_n"] == 3 * 4 and final["timings"]["draft_n_accepted"] == 0 + 3 + 1
    got = counters(llama)
    assert got["llamacpp:spec_decode_num_draft_tokens"] == 12 and got["llamacpp:spec_decode_num_drafts"] == 3
    assert got["llamacpp:spec_decode_num_accepted_tokens"] == 4
    assert llama.get_json("/slots")[0]["params"]["speculative.types"] == "none,ngram-simple"
    assert llama.get_json("/health") == {"status": "ok"}


def test_llamacpp_without_metrics_answers_501(emulator: Start) -> None:
    llama = emulator("--shape", "llamacpp")
    assert llama.get("/metrics")[0] == 501
    events = stream(llama, {"max_tokens": 2})
    assert "draft_n" not in events[-1]["timings"]  # nothing was drafted


def test_tgi_has_no_speculation_field_and_counts_skipped_tokens(emulator: Start) -> None:
    tgi = emulator("--shape", "tgi", "--pattern", "3,1", "--speculation", json.dumps({"speculate": 2}))
    info = tgi.get_json("/info")
    assert info["model_id"] == "test-model" and info["router"] == "text-generation-router"
    assert not [key for key in info if "spec" in key]
    events = stream(
        tgi, {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 8}, "/v1/chat/completions"
    )
    assert [e["choices"][0]["delta"].get("content", "").count(" w") for e in events] == [1] * 8 + [0]
    text = tgi.metrics()
    assert "tgi_request_skipped_tokens_sum 4.0" in text and "tgi_request_skipped_tokens_count 4" in text


def test_a_reset_is_a_restart_and_acceptance_changes_for_later_requests(emulator: Start) -> None:
    vllm = emulator("--pattern", "4", "--speculation", NGRAM5)
    stream(vllm, {"max_tokens": 8})
    assert counters(vllm)["vllm:spec_decode_num_accepted_tokens"] == 6
    vllm.reset_counters()
    assert counters(vllm)["vllm:spec_decode_num_accepted_tokens"] == 0 and vllm.truth() == []
    vllm.set_pattern([1])  # acceptance drops to nothing
    events = stream(vllm, {"max_tokens": 3, "return_token_ids": True})
    assert [len(e["choices"][0]["token_ids"]) for e in events] == [1, 1, 1]
    got = counters(vllm)
    assert got["vllm:spec_decode_num_accepted_tokens"] == 0 and got["vllm:spec_decode_num_drafts"] == 3
    assert vllm.counters()["pattern"] == [1]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"pattern": [7]}, "a step drafts only 5"),
        ({"pattern": [0, 1]}, "at least one token"),
        ({"pattern": "x"}, "integers"),
        ({}, "required"),
    ],
)
def test_a_bad_acceptance_pattern_is_a_400_naming_it(
    emulator: Start, body: dict[str, Any], message: str
) -> None:
    vllm = emulator("--speculation", NGRAM5)
    status, answer = vllm.post_json("/admin/acceptance", body)
    assert status == 400 and answer["error"]["param"] == "pattern" and message in answer["error"]["message"]


def test_bad_requests_are_refused_as_vllm_refuses_them(emulator: Start) -> None:
    vllm = emulator()
    client = httpx.Client(base_url=vllm.base_url, timeout=10)
    unknown = client.post("/v1/completions", json={"model": "nope", "prompt": "p"})
    assert unknown.status_code == 404 and unknown.json()["error"]["param"] == "model"
    bad = client.post("/v1/completions", json={"model": "test-model", "prompt": "p", "max_tokens": "many"})
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "max_tokens"
    chat = client.post("/v1/chat/completions", json={"model": "test-model", "prompt": "p"})
    assert chat.status_code == 400 and chat.json()["error"]["param"] == "messages"


def test_greedy_outputs_depend_on_the_prompt_only(emulator: Start) -> None:
    one, three = emulator("--pattern", "1"), emulator("--pattern", "3", "--shape", "llamacpp")
    texts = [
        "".join(e["choices"][0]["text"] for e in stream(server, {"prompt": "same"}))
        for server in (one, three)
    ]
    assert texts[0] == texts[1] and texts[0].count(" w") == 16
    assert texts[0] != "".join(e["choices"][0]["text"] for e in stream(one, {"prompt": "other"}))


def test_the_harness_reads_a_llamacpp_shaped_server_as_it_reads_llama_server(
    emulator: Start, tmp_path: Path
) -> None:
    claim = json.dumps({"speculative.types": "ngram-simple", "speculative.n_max": 4})
    llama = emulator("--shape", "llamacpp", "--metrics", "--pattern", "3,1", "--speculation", claim)
    plan = BenchPlan.model_validate(
        {
            "engine": {
                "kind": "openai",
                "base_url": llama.base_url,
                "model": "test-model",
                "server": "llamacpp",
            },
            "workload": str(write_prompts(tmp_path / "p.jsonl", 4)),
            "concurrency": [2],
            "requests_per_level": 4,
            "max_tokens": 8,
            "warmup_requests": 0,
        }
    )
    level = run_benchmark(plan).levels[0]
    assert level.errors == 0
    assert isinstance(level.speculation, SpeculationReported)
    # 4 requests × steps of 3, 1, 3, 1: 16 drafts of 4 tokens, 4 × (2 + 0 + 2 + 0) accepted.
    got = level.speculation
    assert (got.drafts, got.draft_tokens, got.accepted_tokens) == (16, 64, 16)
    per_request = sum(r.speculation.draft_tokens for r in level.requests if r.speculation)
    assert per_request == level.speculation.draft_tokens  # the timings add up to the counters
