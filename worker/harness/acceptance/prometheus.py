"""Prometheus text exposition (format 0.0.4) read with its labels kept.

Engines export one series per label set: vLLM a counter per engine (its data-parallel
ranks) and per draft `position`, SGLang a gauge per `dp_rank`. Readers need both the sum
over series and one label's breakdown, so nothing is dropped here. Sample names are kept
as written (a counter's `_total`, a histogram's `_sum`/`_count`).

The worker reads the engine it benchmarks; the control plane's conformance probe reads a
live endpoint with the same parser, so what a server may make it do is bounded: non-finite
values are skipped (no counter is infinite) and at most `max_samples` samples are kept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_SAMPLE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?\s*$")
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}

Labels = tuple[tuple[str, str], ...]


def _labels(text: str) -> Labels | None:
    pairs: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _LABEL.match(text, pos)
        if m is None:
            return None if text[pos:].strip() else tuple(sorted(pairs))
        value = re.sub(r"\\[\\\"n]", lambda e: _UNESCAPE[e.group(0)], m.group(2))
        pairs.append((m.group(1), value))
        pos = m.end()
    return tuple(sorted(pairs))


@dataclass
class Metrics:
    """Samples by name, each a mapping of its label set to its value."""

    samples: dict[str, dict[Labels, float]] = field(default_factory=dict)

    def __contains__(self, name: str) -> bool:
        return name in self.samples

    def total(self, name: str) -> float | None:
        """The sum over every series of `name` (e.g. every engine), or None if absent."""
        series = self.samples.get(name)
        return math.fsum(series.values()) if series is not None else None

    def by_label(self, name: str, label: str) -> dict[str, float]:
        """`name` summed per value of `label` (e.g. per `position`, over engines)."""
        out: dict[str, float] = {}
        for labels, value in self.samples.get(name, {}).items():
            key = dict(labels).get(label)
            if key is not None:
                out[key] = out.get(key, 0.0) + value
        return out

    def series(self, name: str) -> Mapping[Labels, float]:
        return self.samples.get(name, {})


def parse(text: str, *, max_samples: int = 100_000) -> Metrics:
    """Every well-formed sample of `text`, at most `max_samples`; comments, malformed
    lines and non-finite values are skipped."""
    metrics = Metrics()
    kept = 0
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _SAMPLE.match(line.strip())
        if m is None:
            continue
        labels = _labels(m.group(2) or "")
        try:
            value = float(m.group(3))
        except ValueError:
            continue
        if labels is None or not math.isfinite(value):
            continue
        metrics.samples.setdefault(m.group(1), {})[labels] = value
        kept += 1
        if kept >= max_samples:
            break
    return metrics
