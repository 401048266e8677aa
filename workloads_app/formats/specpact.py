"""SpecPact workload JSONL itself (the format is worker/workloads/records.py)."""

from __future__ import annotations

from workloads_app.formats.reading import Builder, Input, jsonl


def read(data: Input, builder: Builder) -> None:
    for number, obj in jsonl(data, builder.source, builder.scratch):
        if isinstance(obj, dict):
            builder.add(number, obj)
        else:
            builder.problem(number, "", "expected a JSON object")
