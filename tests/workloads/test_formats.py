"""Each importer on a sample in its format's documented shape (tests/workloads/samples.py
cites each shape's source), the canonical form and digest, and bad input by line."""

from __future__ import annotations

import json

import pytest

from tests.workloads.samples import MOONCAKE, OPENAI, SAMPLES, SGLANG, SHAREGPT, SPECPACT, VLLM
from worker.workloads import parse_jsonl
from worker.workloads.records import LineError, WorkloadError, canonical_bytes, digest_of
from workloads_app.formats import import_upload


def _digest(raw: str, fmt: str) -> str:
    return digest_of(canonical_bytes(import_upload(raw.encode(), fmt).records))


def _reshaped(raw: str) -> str:
    """The same JSON Lines with keys reversed, spaces and indentation, CRLF and blank lines."""
    out = []
    for line in raw.splitlines():
        if line.strip():
            obj = json.loads(line)
            out.append(json.dumps(dict(reversed(list(obj.items()))), indent=None, separators=(" , ", " : ")))
    return "\r\n\r\n".join(out) + "\r\n"


def test_specpact_jsonl_keeps_prompts_conversations_references_and_arrivals() -> None:
    records = import_upload(SPECPACT.encode(), "specpact").records
    assert [r.id for r in records] == ["p1", None, None]
    assert records[0].prompt and records[0].reference == "4411"
    assert [(r.conversation, r.turn) for r in records[1:]] == [("c-1", 0), ("c-1", 1)]
    assert records[1].messages is not None and records[1].messages[0].role == "system"
    assert records[2].arrival_s == 1.5 and records[1].max_tokens == 64


def test_openai_request_logs_are_put_back_into_conversations() -> None:
    imported = import_upload(OPENAI.encode(), "openai")
    first, second, third = imported.records
    # The second request carries the first one's history and its answer: it is turn 1.
    assert (first.conversation, first.turn) == (second.conversation, 0)
    assert second.turn == 1 and second.id == "req-2"
    assert [m.content for m in second.messages or []] == ["And in sport mode?"]  # text parts joined
    assert first.reference == "About 80 km on a full charge in eco mode."  # the answer in req-2's history
    assert second.reference == "About 45 km."  # the Batch output's response
    assert (first.max_tokens, second.max_tokens) == (128, 96)  # max_completion_tokens, max_tokens
    assert third.conversation is None and third.messages and third.messages[0].role == "user"
    assert imported.numbers == [1, 2, 3]


def test_a_replayed_later_turn_carries_the_targets_own_answer_not_the_logged_one() -> None:
    data = canonical_bytes(import_upload(OPENAI.encode(), "openai").records).decode()
    workload = parse_jsonl(data, source="t", name="t")
    conv = next(c for c in workload.conversations if len(c.turns) == 2)
    messages = conv.chat_messages(1, ["THE TARGET'S OWN ANSWER"])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "THE TARGET'S OWN ANSWER"
    text = conv.prompt_text(1, [" THE TARGET'S OWN ANSWER"])
    assert text == (
        "System: You are a concise assistant for Kestrel e-bikes.\n\n"
        "User: How long does the battery last?\nAssistant: THE TARGET'S OWN ANSWER\n"
        "User: And in sport mode?\nAssistant:"
    )


def test_sharegpt_conversations_become_turns_with_the_answers_as_references() -> None:
    imported = import_upload(SHAREGPT.encode(), "sharegpt")
    assert imported.unit == "entry"
    haiku = [r for r in imported.records if r.conversation == "sg-1"]
    assert [r.turn for r in haiku] == [0, 1]
    assert haiku[1].messages and haiku[1].messages[0].content == "Now one about snow."
    assert haiku[0].reference and haiku[0].reference.startswith("Tin roof drums")
    [single] = [r for r in imported.records if r.id == "sg-2"]
    assert [m.role for m in single.messages or []] == ["system", "user"]
    assert single.reference == "Usually steel coated with zinc or tin."


def test_vllm_custom_and_spec_bench_lines() -> None:
    imported = import_upload(VLLM.encode(), "vllm")
    prompts = [r.prompt for r in imported.records if r.prompt]
    assert prompts == ["What is the capital of India?", "What is the capital of Iran?"]
    spec_bench = [r for r in imported.records if r.conversation == "81"]
    assert [r.turn for r in spec_bench] == [0, 1]
    assert "(vLLM ignores them too): source" in imported.warnings[0][2]


def test_sglang_custom_conversations_and_openai_messages() -> None:
    first, second = import_upload(SGLANG.encode(), "sglang").records
    assert first.messages and first.messages[0].content.startswith("Summarise")
    assert first.reference == "The meeting is now on Tuesday."
    assert second.messages and [m.role for m in second.messages] == ["system", "user"]
    assert second.max_tokens == 16


def test_mooncake_traces_become_timed_synthetic_prompts_in_timestamp_order() -> None:
    imported = import_upload(MOONCAKE.encode(), "mooncake")
    assert [r.arrival_s for r in imported.records] == [0.0, 0.7, 1.5]
    assert imported.numbers == [1, 3, 2]
    first = imported.records[0]
    assert first.synthetic_prompt is not None
    assert (first.synthetic_prompt.tokens, first.synthetic_prompt.block_tokens, first.max_tokens) == (
        1200,
        512,
        40,
    )
    # The stand-in text: one block of words per hash id, equal ids equal words.
    workload = parse_jsonl(canonical_bytes(imported.records).decode(), source="t", name="t")
    texts = [c.turns[0].own_text() for c in workload.conversations]
    assert len(texts[0].split()) == 1200 and len(texts[1].split()) == 300
    assert texts[0].split("\n")[:2] == texts[2].split("\n")[:2]  # hash ids 0, 1 shared
    assert texts[0].split("\n")[2] != texts[2].split("\n")[2]


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_the_digest_ignores_key_order_whitespace_and_line_ends(fmt: str) -> None:
    raw = SAMPLES[fmt]
    reshaped = json.dumps(json.loads(raw)) if fmt == "sharegpt" else _reshaped(raw)
    assert reshaped != raw
    assert _digest(reshaped, fmt) == _digest(raw, fmt)
    assert _digest(raw, fmt).startswith("sha256:") and len(_digest(raw, fmt)) == 71


def test_the_digest_changes_with_the_content_and_the_canonical_form_is_sorted_compact_json() -> None:
    assert _digest(SPECPACT.replace("4411", "4412"), "specpact") != _digest(SPECPACT, "specpact")
    line = canonical_bytes(import_upload(SPECPACT.encode(), "specpact").records).decode().splitlines()[0]
    assert line == json.dumps(json.loads(line), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # The same requests imported from two formats are one workload.
    vllm_only = import_upload(b'{"prompt": "What is the capital of India?"}\n', "vllm").records
    specpact_only = import_upload(b'{ "prompt" : "What is the capital of India?" }\n', "specpact").records
    assert digest_of(canonical_bytes(vllm_only)) == digest_of(canonical_bytes(specpact_only))


def test_every_bad_line_is_reported_at_once_with_its_number() -> None:
    raw = "\n".join(
        [
            '{"prompt": "fine"}',
            "not json",
            '{"prompt": ""}',
            '{"prompt": "x", "colour": 1}',
            '{"messages": [{"role": "user", "content": "a"}], "prompt": "b"}',
            '{"prompt": "turn", "turn": 1}',
        ]
    ).encode()
    with pytest.raises(LineError) as caught:
        import_upload(raw, "specpact", source="up")
    problems = caught.value.problems
    assert sorted({n for n, _, _ in problems}) == [2, 3, 4, 5, 6]
    assert (3, "prompt", "String should have at least 1 character") in problems
    assert any(n == 5 and "exactly one of prompt, messages" in m for n, _, m in problems)
    assert any(n == 6 and "turn needs a conversation" in m for n, _, m in problems)


def test_non_utf8_names_the_line_and_byte() -> None:
    raw = b'{"prompt": "fine"}\n{"prompt": "caf\xe9"}\n'
    with pytest.raises(LineError) as caught:
        import_upload(raw, "specpact", source="up")
    [(line, _, message)] = caught.value.problems
    assert line == 2 and "not UTF-8 (byte 34" in message


@pytest.mark.parametrize(
    ("fmt", "raw", "line"),
    [
        ("openai", '{"messages": [{"role": "user", "content": ""}]}\n', 1),
        ("sharegpt", '[{"conversations": [{"from": "human", "value": ""}]}]', 1),
        ("vllm", '{"prompt": "ok"}\n{"prompt": ""}\n', 2),
        ("sglang", '{"messages": [{"role": "user", "content": ""}]}\n', 1),
    ],
)
def test_empty_prompts_are_refused_in_every_format(fmt: str, raw: str, line: int) -> None:
    with pytest.raises(LineError) as caught:
        import_upload(raw.encode(), fmt, source="up")
    assert [n for n, _, _ in caught.value.problems] == [line]
    assert any("at least 1 character" in m for _, _, m in caught.value.problems)


def test_shapes_that_cannot_be_replayed_are_refused_by_line() -> None:
    tool = {"messages": [{"role": "user", "content": "x"}, {"role": "tool", "content": "42"}]}
    image = {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}]}
    raw = "\n".join(json.dumps(x) for x in [tool, image, {"model": "m"}]).encode()
    with pytest.raises(LineError) as caught:
        import_upload(raw, "openai", source="up")
    messages = {n: m for n, _, m in caught.value.problems}
    assert (
        "tool messages" in messages[1] and "only text content" in messages[2] and "no messages" in messages[3]
    )
    with pytest.raises(LineError, match="line 1: a Mooncake trace line needs hash_ids"):
        import_upload(b'{"timestamp": 0, "input_length": 5, "output_length": 1}\n', "mooncake", source="up")
    with pytest.raises(WorkloadError, match="no prompts"):
        import_upload(b"\n\n", "specpact", source="up")
