"""Recorded batches as the gate's arms: per (candidate, level), the first n requests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from advice_app.strategy.types import Candidate, Record
from benchmarks_app.gate.inputs import ArmLevel


class Cells:
    """Each (candidate, level)'s batches in record order, concatenated on demand."""

    def __init__(self, lane: str, records: Sequence[Record]) -> None:
        self.lane = lane
        self._batches: dict[tuple[Candidate, float], list[Record]] = {}
        for r in records:
            self._batches.setdefault((r.candidate, r.level), []).append(r)

    def count(self, candidate: Candidate, level: float) -> int:
        return sum(r.samples.n_requests for r in self._batches.get((candidate, level), []))

    def headroom(self, candidate: Candidate, first: int | None = None) -> float | None:
        """The least memory headroom reported over the candidate's batches, at every level,
        that a look at `first` requests per cell saw (None: none reported)."""
        seen = []
        for (c, _level), batches in self._batches.items():
            if c != candidate:
                continue
            left = first if first is not None else 1 << 62
            for r in batches:
                if left <= 0:
                    break
                if r.samples.headroom_gib is not None:
                    seen.append(r.samples.headroom_gib)
                left -= r.samples.n_requests
        return min(seen) if seen else None

    def arm(self, candidate: Candidate, level: float, first: int | None = None) -> ArmLevel | None:
        """The cell as a gate arm, cut to its first `first` requests (None: all of them).
        A prefix, so a look taken after n requests sees the same data when replayed."""
        batches = self._batches.get((candidate, level))
        if not batches:
            return None
        ttft, tpot, e2e, tokens, errors = [], [], [], [], 0
        left = first if first is not None else 1 << 62
        for r in batches:
            s = r.samples
            if left <= 0:
                break
            take = min(len(s.e2e), left)
            # A batch's failures are counted with it, after its successes (their order is unknown).
            failed = min(s.n_errors, left - take)
            ttft.append(s.ttft[:take])
            tpot.append(s.tpot[:take])
            e2e.append(s.e2e[:take])
            tokens.append(s.output_tokens[:take] if len(s.output_tokens) else np.ones(take))
            errors += failed
            left -= take + failed
        e2e_all = np.concatenate(e2e)
        return ArmLevel(
            lane=self.lane,
            level_kind="concurrency",
            level=level,
            samples={"ttft": np.concatenate(ttft), "tpot": np.concatenate(tpot), "e2e": e2e_all},
            output_tokens=np.concatenate(tokens),
            e2e_ms=e2e_all,
            n_requests=len(e2e_all) + errors,
            n_errors=errors,
        )
