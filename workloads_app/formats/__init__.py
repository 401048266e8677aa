"""Importers: each format people already have, read into SpecPact workload JSONL
(worker/workloads/records.py). Pure Python (no Django), like the contract format core.

`import_upload(stream, fmt)` reads the upload as a stream (strict UTF-8, line by line),
keeps what it must see across lines in a `Scratch` file rather than in memory, and raises
a `LineError` listing the bad lines (or array entries: the first SHOWN, all counted);
nothing is half-imported. Each importer's module says which tool's shape it reads and
where that shape is defined.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO

from worker.workloads.records import LineError, WorkloadError
from workloads_app.formats import mooncake, openai, sglang, sharegpt, specpact, vllm
from workloads_app.formats.reading import Builder, Imported, Input, TooManyRecords, Transform, UploadTooLarge
from workloads_app.formats.scratch import Scratch

READERS: dict[str, Callable[[Input, Builder], None]] = {
    "specpact": specpact.read,
    "openai": openai.read,
    "sharegpt": sharegpt.read,
    "vllm": vllm.read,
    "sglang": sglang.read,
    "mooncake": mooncake.read,
}
FORMATS = tuple(READERS)

__all__ = [
    "FORMATS",
    "Imported",
    "LineError",
    "Scratch",
    "TooManyRecords",
    "UploadTooLarge",
    "WorkloadError",
    "import_upload",
]


def import_upload(
    stream: IO[bytes] | bytes,
    fmt: str,
    *,
    source: str = "upload",
    scratch: Scratch | None = None,
    max_records: int | None = None,
    max_bytes: int | None = None,
    transform: Transform | None = None,
) -> Imported:
    """The upload's records, validated, `transform`ed (redaction) and in canonical form,
    in `scratch` (a new one, closed when the result goes, when not given)."""
    if fmt not in READERS:
        raise WorkloadError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    data = Input(stream, max_bytes)
    builder = Builder(
        source, scratch if scratch is not None else Scratch(), max_records=max_records, transform=transform
    )
    READERS[fmt](data, builder)
    imported = builder.finish()
    imported.upload_bytes = data.size
    return imported
