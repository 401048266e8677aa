"""The JSONL vLLM's benchmark reads (`vllm bench serve --dataset-name custom|spec_bench`):

- custom: `{"prompt": "What is the capital of India?"}` per line (`CustomDataset`,
  `vllm/benchmarks/datasets/custom.py`: pandas `read_json(lines=True)`, a `prompt` column
  required, other columns ignored);
- SpecBench: `{"question_id", "category", "turns": ["…", "…"]}` (`SpecBench` in the same
  file, reading Spec-Bench's `question.jsonl`). vLLM sends `turns[0]` only; here each
  entry of `turns` is a turn of the conversation (and an MT-Bench-style `reference` list,
  where given, the turns' references).
"""

from __future__ import annotations

from typing import Any

from workloads_app.formats.reading import Builder, Input, jsonl

_KNOWN = {"prompt", "turns", "question_id", "category", "reference"}
_NAMED_IGNORED = 50


def read(data: Input, builder: Builder) -> None:
    ignored: set[str] = set()

    def convert(number: int, obj: dict[str, Any]) -> None:
        for name in set(obj) - _KNOWN:
            if len(ignored) < _NAMED_IGNORED:  # each line may bring new names: name the first
                ignored.add(name)
        if "turns" in obj:
            turns = obj["turns"]
            if not isinstance(turns, list) or not turns or not all(isinstance(t, str) for t in turns):
                raise ValueError("turns: a non-empty list of strings is required")
            given = obj.get("reference")
            refs: list[Any] = given if isinstance(given, list) else []
            cid = str(obj.get("question_id", f"line-{number}"))
            for k, text_ in enumerate(turns):
                record: dict[str, Any] = {"messages": [{"role": "user", "content": text_}]}
                if k < len(refs) and isinstance(refs[k], str) and refs[k]:
                    record["reference"] = refs[k]
                if len(turns) > 1:
                    record |= {"conversation": cid, "turn": k}
                else:
                    record["id"] = cid
                builder.add(number, record)
        elif "prompt" in obj:
            builder.add(number, {"prompt": obj["prompt"]})
        else:
            raise ValueError("a vLLM custom dataset line needs 'prompt' (or SpecBench's 'turns')")

    builder.each(jsonl(data, builder.source, builder.scratch), convert)
    if ignored:
        builder.warn(0, f"fields not replayed (vLLM ignores them too): {', '.join(sorted(ignored))}")
