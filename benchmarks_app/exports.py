"""A run's raw per-request samples as CSV rows, for analysis outside SpecPact. The JSON
download is the whole result; the CSV is one row per request of each arm and level, of
either result schema.

Cells are written for spreadsheets: a text cell that begins with `=`, `+`, `-`, `@`, a tab
or a carriage return would be read as a formula (CSV injection: a prompt id or an engine's
error text like `=HYPERLINK(...)`), so it gets a leading apostrophe (OWASP's advice).
Numbers are written as numbers."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from worker.spec import ARMS

COLUMNS = (
    "arm",
    "level_kind",
    "level",
    "prompt_id",
    "send_s",
    "ttft_ms",
    "tpot_ms",
    "e2e_ms",
    "output_tokens",
    "output_tokens_source",
    "chunks",
    "tokens_per_chunk_mean",
    "tokens_per_chunk_max",
    "error",
)


def _level(level: dict[str, Any]) -> tuple[str, Any]:
    return (
        ("rate", level["rate"])
        if level.get("rate") is not None
        else ("concurrency", level.get("concurrency"))
    )


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """A text cell that a spreadsheet would evaluate, made literal; anything else as is."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _chunks(request: dict[str, Any]) -> int:
    offsets = request.get("chunk_offsets_us")
    return len(offsets if offsets is not None else request.get("chunk_offsets_ms") or [])


def result_rows(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for arm in ARMS:
        for level in (payload.get(arm) or {}).get("levels", []):
            kind, value = _level(level)
            for request in level.get("requests", []):
                chunks = [n for n in (request.get("chunk_tokens") or []) if n is not None]
                yield {
                    "arm": arm,
                    "level_kind": kind,
                    "level": value,
                    "prompt_id": request.get("prompt_id"),
                    "send_s": request.get("send_s"),
                    "ttft_ms": request.get("ttft_ms"),
                    "tpot_ms": request.get("tpot_ms"),
                    "e2e_ms": request.get("e2e_ms"),
                    "output_tokens": request.get("output_tokens"),
                    "output_tokens_source": request.get("output_tokens_source"),
                    "chunks": _chunks(request),
                    "tokens_per_chunk_mean": round(sum(chunks) / len(chunks), 4) if chunks else None,
                    "tokens_per_chunk_max": max(chunks) if chunks else None,
                    "error": request.get("error") or "",
                }


def result_csv(payload: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in result_rows(payload):
        writer.writerow({key: spreadsheet_safe(value) for key, value in row.items()})
    return out.getvalue()
