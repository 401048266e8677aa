"""Cumulative counters read twice, differenced: what happened in between.

A counter only grows while its engine runs; one that went backwards means the engine
restarted (or reset it) in between, so what it counted before is lost and no difference
of it means anything. The worker differences a level's /metrics (spec_decode.py), the
control plane's acceptance watch its scrapes of a live endpoint (live_app/services/watch.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Restarted:
    counter: str  # the first counter, in the order given, that went backwards


def counter_deltas(
    before: Mapping[str, float | None], after: Mapping[str, float | None]
) -> dict[str, float] | Restarted:
    """`after - before` for each counter of `after` (a value missing on either side counts
    as 0), or the counter that went backwards."""
    deltas: dict[str, float] = {}
    for name, value in after.items():
        delta = (value or 0.0) - (before.get(name) or 0.0)
        if delta < 0:
            return Restarted(name)
        deltas[name] = delta
    return deltas
