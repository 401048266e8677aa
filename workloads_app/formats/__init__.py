"""Importers: each format people already have, read into SpecPact workload JSONL
(worker/workloads/records.py). Pure Python (no Django), like the contract format core.

`import_upload(raw, fmt)` decodes (strict UTF-8), reads every line, and raises a
`LineError` listing every bad line (or array entry) at once; nothing is half-imported.
Each importer's module says which tool's shape it reads and where that shape is defined.
"""

from __future__ import annotations

from collections.abc import Callable

from worker.workloads.records import LineError, WorkloadError
from workloads_app.formats import mooncake, openai, sglang, sharegpt, specpact, vllm
from workloads_app.formats.reading import Imported, decode

READERS: dict[str, Callable[[str, str], Imported]] = {
    "specpact": specpact.read,
    "openai": openai.read,
    "sharegpt": sharegpt.read,
    "vllm": vllm.read,
    "sglang": sglang.read,
    "mooncake": mooncake.read,
}
FORMATS = tuple(READERS)

__all__ = ["FORMATS", "Imported", "LineError", "WorkloadError", "import_upload"]


def import_upload(raw: bytes, fmt: str, *, source: str = "upload") -> Imported:
    if fmt not in READERS:
        raise WorkloadError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    return READERS[fmt](decode(raw, source), source)
