"""The JSONL SGLang's `bench_serving` reads (`python -m sglang.bench_serving`):

- `--dataset-name custom`: `{"conversations": [{"role"|"from", "content"|"value"}, …]}`
  per line (`sample_custom_requests`, `python/sglang/benchmark/datasets/custom.py`, which
  sends the first message and takes the second as the completion): read like ShareGPT,
  every question a turn;
- `--dataset-name openai`: `{"messages": [...], "max_tokens": N, …}` per line
  (`sample_openai_requests`, `python/sglang/benchmark/datasets/openai_dataset.py`; other
  request fields like `tools` or `temperature` are passed through there, not replayed
  here): one request each.
"""

from __future__ import annotations

from typing import Any

from workloads_app.formats.reading import Builder, Input, jsonl, role_of, text_of
from workloads_app.formats.sharegpt import conversation_records


def read(data: Input, builder: Builder) -> None:
    def convert(number: int, obj: dict[str, Any]) -> None:
        if "conversations" in obj or "conversation" in obj:
            conversation_records(number, obj, builder)
        elif "messages" in obj:
            raw = obj["messages"]
            if not isinstance(raw, list) or not raw:
                raise ValueError("messages: a non-empty list is required")
            messages = []
            for i, m in enumerate(raw):
                if not isinstance(m, dict):
                    raise ValueError(f"messages[{i}]: expected an object")
                role = role_of(m.get("role"), f"messages[{i}]")
                messages.append(
                    {"role": role, "content": text_of(m.get("content"), f"messages[{i}].content")}
                )
            builder.add(number, {"messages": messages, "max_tokens": obj.get("max_tokens")})
        else:
            raise ValueError("an SGLang line needs 'conversations' (custom) or 'messages' (openai)")

    builder.each(jsonl(data, builder.source, builder.scratch), convert)
