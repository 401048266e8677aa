"""Mooncake traces (kvcache-ai/Mooncake, `FAST25-release/README.md`, "Trace Format"): JSON
Lines of `{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46,
47, …]}`: the arrival time in milliseconds from the trace's start, the input and output
lengths in tokens, and the prompt's prefix-block hashes (blocks of 512 tokens; equal ids
are a shared prefix). The traces carry no text ("Raw text and tokens are not included
for privacy protection"), so each request becomes a `synthetic_prompt` that the worker
writes out as stand-in words, the same words for the same block id, and `max_tokens` is
the recorded output length. Requests are kept in timestamp order (SGLang's replay sorts
them the same way before sending at `timestamp / 1000` s).
"""

from __future__ import annotations

from typing import Any

from worker.workloads.records import MOONCAKE_BLOCK_TOKENS
from workloads_app.formats.reading import Builder, Input, jsonl

_FIELDS = ("timestamp", "input_length", "output_length", "hash_ids")
# A year of milliseconds, a hundred times over: any real trace, and a float holds it exactly.
MAX_TIMESTAMP_MS = 100 * 365 * 24 * 3600 * 1000


def read(data: Input, builder: Builder) -> None:
    def convert(number: int, obj: dict[str, Any]) -> None:
        missing = [f for f in _FIELDS if f not in obj]
        if missing:
            raise ValueError(f"a Mooncake trace line needs {', '.join(missing)}")
        ts = obj["timestamp"]
        if isinstance(ts, bool) or not isinstance(ts, (int, float)) or ts < 0:
            raise ValueError("timestamp: milliseconds from the trace's start (a number ≥ 0)")
        # A JSON integer beyond what a float holds (2^1100) would be an OverflowError below.
        if ts > MAX_TIMESTAMP_MS:
            builder.problem(number, "timestamp", f"at most {MAX_TIMESTAMP_MS} milliseconds")
            return
        record = {
            "synthetic_prompt": {
                "hash_ids": obj["hash_ids"],
                "tokens": obj["input_length"],
                "block_tokens": MOONCAKE_BLOCK_TOKENS,
            },
            "max_tokens": obj["output_length"],
            "arrival_s": ts / 1000.0,
        }
        # Replayed in timestamp order (ties in line order): the scratch sorts them.
        builder.defer(number, record, sort=float(ts))

    builder.each(jsonl(data, builder.source, builder.scratch), convert)
