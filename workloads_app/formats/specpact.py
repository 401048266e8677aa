"""SpecPact workload JSONL itself (the format is worker/workloads/records.py)."""

from __future__ import annotations

from workloads_app.formats.reading import Builder, Imported, jsonl


def read(text: str, source: str) -> Imported:
    builder = Builder(source)
    for number, obj in jsonl(text, builder.problems):
        if isinstance(obj, dict):
            builder.add(number, obj)
        else:
            builder.problem(number, "", "expected a JSON object")
    return builder.finish()
