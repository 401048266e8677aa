"""Prometheus text exposition read with its labels (the worker's `parse_prometheus` sums
them away; the conformance probe needs vLLM's `position` labels to tell k)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_SAMPLE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?\s*$")
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


@dataclass(frozen=True)
class Sample:
    name: str  # as written, `_total` kept
    labels: dict[str, str]
    value: float


def parse_samples(text: str, *, max_samples: int = 100_000) -> list[Sample]:
    """Every well-formed sample line; comments, malformed lines and non-finite values are
    skipped (a hostile server gains nothing by them), and at most `max_samples` are kept."""
    out: list[Sample] = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if m is None:
            continue
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        if not math.isfinite(value):
            continue
        labels = {k: v for k, v in _LABEL.findall(m.group(2) or "")}
        out.append(Sample(m.group(1), labels, value))
        if len(out) >= max_samples:
            break
    return out


def total(samples: list[Sample], name: str) -> float | None:
    """The sum of `name`'s samples over all label sets (`name` with or without `_total`);
    None when the server exposes no such metric."""
    names = {name, name.removesuffix("_total"), name.removesuffix("_total") + "_total"}
    values = [s.value for s in samples if s.name in names]
    return sum(values) if values else None


def label_values(samples: list[Sample], name: str, label: str) -> set[str]:
    names = {name, name.removesuffix("_total") + "_total"}
    return {s.labels[label] for s in samples if s.name in names and label in s.labels}
