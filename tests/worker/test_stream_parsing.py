"""Turning recorded SSE bytes into a request record: token counts and their sources."""

from __future__ import annotations

import json
from typing import Any

from worker.harness.stream import Exchange, to_record


def _sse(*events: dict[str, Any] | str) -> bytes:
    out = b""
    for e in events:
        out += b"data: " + (e.encode() if isinstance(e, str) else json.dumps(e).encode()) + b"\n\n"
    return out


def _exchange(reads: list[tuple[float, bytes]]) -> Exchange:
    return Exchange(
        prompt_id="p", level_start=0.0, sent=1.0, ended=2.0, status=200,
        content_type="text/event-stream", reads=reads,
    )  # fmt: skip


def test_an_event_split_across_reads_arrives_when_its_last_byte_does() -> None:
    raw = _sse(
        {"choices": [{"text": "a", "token_ids": [5]}]}, {"choices": [{"text": "bc", "token_ids": [6, 7]}]}
    )
    cut = raw.index(b"\n\n") + 10  # the second event straddles two reads
    r = to_record(_exchange([(1.010, raw[:cut]), (1.030, raw[cut:] + _sse("[DONE]"))]))
    assert r.error is None
    assert [round(x, 6) for x in r.chunk_offsets_ms] == [10.0, 30.0]
    assert r.chunk_tokens == [1, 2] and r.output_tokens == 3 and r.output_tokens_source == "chunks"
    assert r.output_token_ids == [5, 6, 7] and r.output_text == "abc"
    assert abs(r.tpot_ms - 10.0) < 1e-6  # (30 - 10) / (3 - 1)


def test_chat_logprobs_count_tokens_per_chunk_and_usage_sets_the_total() -> None:
    lp = lambda n: {"content": [{"token": "x", "logprob": -0.1}] * n}  # noqa: E731
    raw = _sse(
        {"choices": [{"delta": {"role": "assistant", "content": ""}}]},  # no tokens: not a chunk
        {"choices": [{"delta": {"content": "hi"}, "logprobs": lp(2)}]},
        {"choices": [{"delta": {"content": " there"}, "logprobs": lp(1), "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 3}},
        "[DONE]",
    )
    r = to_record(_exchange([(1.002, raw[:60]), (1.005, raw[60:])]))
    assert r.error is None and r.output_tokens_source == "usage" and r.chunk_tokens_source == "logprobs"
    assert r.chunk_tokens == [2, 1] and r.finish_reason == "stop"


def test_usage_equal_to_the_chunk_count_means_one_token_per_chunk() -> None:
    raw = _sse(
        {"choices": [{"text": "a"}]},
        {"choices": [{"text": "b", "finish_reason": "length"}]},
        {"choices": [], "usage": {"completion_tokens": 2}},
    )
    r = to_record(_exchange([(1.1, raw)]))
    assert r.chunk_tokens == [1, 1] and r.chunk_tokens_source == "one_per_chunk"


def test_usage_larger_than_the_chunk_count_leaves_per_chunk_counts_unknown() -> None:
    raw = _sse(
        {"choices": [{"text": "ab", "finish_reason": "length"}]},
        {"choices": [], "usage": {"completion_tokens": 5}},
    )
    r = to_record(_exchange([(1.1, raw)]))
    assert r.error is None and r.output_tokens == 5 and r.chunk_tokens is None


def test_a_tokenizer_counts_when_the_server_gives_nothing() -> None:
    raw = _sse({"choices": [{"text": "one two three", "finish_reason": "stop"}]}, "[DONE]")
    r = to_record(_exchange([(1.1, raw)]), count_tokens=lambda text: len(text.split()))
    assert r.output_tokens == 3 and r.output_tokens_source == "tokenizer"


def test_llama_cpp_timings_give_the_request_draft_counts() -> None:
    raw = _sse(
        {"choices": [{"text": "a"}]},
        {"choices": [{"text": "b", "finish_reason": "length"}], "usage": {"completion_tokens": 2},
         "timings": {"predicted_n": 2, "draft_n": 6, "draft_n_accepted": 1}},
    )  # fmt: skip
    r = to_record(_exchange([(1.1, raw)]))
    assert r.speculation is not None and (r.speculation.draft_tokens, r.speculation.accepted_tokens) == (6, 1)


def test_a_stream_that_ends_without_finishing_is_an_error() -> None:
    raw = _sse({"choices": [{"text": "a"}]})
    assert "ended before completion" in (to_record(_exchange([(1.1, raw)])).error or "")
