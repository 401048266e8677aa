"""ShareGPT-style conversations: a JSON array (as `ShareGPT_V3_unfiltered_cleaned_split.json`)
or JSON Lines of `{"id", "conversations": [{"from": "human" | "gpt" | "system", "value"}]}`.

The shape vLLM's `ShareGPTDataset` reads (`vllm/benchmarks/datasets/sharegpt.py`:
`json.load`, `entry["conversations"][i]["value"]`) and SGLang's `sample_sharegpt_requests`
(`python/sglang/benchmark/datasets/sharegpt.py`, which also takes the key `conversation`);
SGLang's custom JSONL uses `role`/`content` in the same list, read here too. Both tools
keep only the first two messages (a prompt and its completion); here every human turn is
a turn of the conversation, and the answer after it is that turn's reference.
"""

from __future__ import annotations

from typing import Any

from workloads_app.formats.reading import Builder, Input, json_array_or_lines, role_of, text_of


def conversation_records(number: int, obj: dict[str, Any], builder: Builder) -> None:
    messages = obj.get("conversations", obj.get("conversation"))
    if not isinstance(messages, list):
        raise ValueError("conversations: a list of messages is required")
    cid = str(obj["id"]) if obj.get("id") not in (None, "") else f"entry-{number}"
    turns: list[dict[str, Any]] = []
    pending: list[dict[str, str]] = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise ValueError(f"conversations[{i}]: expected an object")
        where = f"conversations[{i}]"
        role = role_of(m.get("from", m.get("role")), where)
        content = text_of(m.get("value", m.get("content")), f"{where}.value")
        if role == "assistant":
            if pending:
                turns.append({"messages": pending})
                pending = []
            if turns and "reference" not in turns[-1]:
                turns[-1]["reference"] = content or None
            elif not turns:
                builder.warn(number, f"{where}: an answer before any question was left out")
            continue
        pending.append({"role": role, "content": content})
    if pending and any(m["role"] == "user" for m in pending):
        turns.append({"messages": pending})
    if not turns:
        builder.warn(number, "a conversation without a question was left out")
        return
    for k, turn in enumerate(turns):
        if len(turns) > 1:
            turn |= {"conversation": cid, "turn": k}
        else:
            turn["id"] = cid
        builder.add(number, turn)


def read(data: Input, builder: Builder) -> None:
    builder.unit, items = json_array_or_lines(data, builder.source, builder.scratch)
    builder.each(items, lambda number, obj: conversation_records(number, obj, builder))
