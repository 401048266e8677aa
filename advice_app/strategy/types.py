"""What the advisor is given and hands back: candidates, measurement requests, samples."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchmarks_app.gate.inputs import FloatArray, as_samples

OFF = "off"  # the method of the baseline arm: speculation off


@dataclass(frozen=True)
class Candidate:
    """One configuration to try: a speculation method and its tokens per step.

    `assets` counts what the operator must provide and keep (a draft model, EAGLE heads):
    between two candidates that can't be told apart, fewer assets win. `memory_gib` is
    what the assets occupy (reported; the caller checks it against the headroom rule).
    `schedulable`: the engine takes a token schedule, so above the crossover load the
    candidate can run with fewer tokens or none (engines that don't: it runs everywhere).
    """

    name: str
    method: str
    tokens: int
    assets: int = 0
    memory_gib: float | None = None
    schedulable: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("a candidate needs a name")
        if not isinstance(self.method, str) or not self.method.strip():
            raise ValueError(f"candidate {self.name!r}: method must be a non-empty string")
        if isinstance(self.tokens, bool) or not isinstance(self.tokens, int):
            raise ValueError(f"candidate {self.name!r}: tokens must be a whole number")
        if (self.method == OFF) != (self.tokens == 0):
            raise ValueError(f"candidate {self.name!r}: tokens must be 0 exactly when the method is {OFF!r}")
        if self.tokens < 0:
            raise ValueError(f"candidate {self.name!r}: tokens must be at least 1")
        if isinstance(self.assets, bool) or not isinstance(self.assets, int) or self.assets < 0:
            raise ValueError(f"candidate {self.name!r}: assets must be a whole number >= 0")
        if self.memory_gib is not None and not (np.isfinite(self.memory_gib) and self.memory_gib >= 0):
            raise ValueError(f"candidate {self.name!r}: memory_gib must be a number >= 0")


# The arm every candidate is compared with, measured at every level like them.
BASELINE = Candidate(name=OFF, method=OFF, tokens=0)


@dataclass(frozen=True)
class Request:
    """Measure `n` more requests of `candidate` at concurrency `level` on the lane."""

    candidate: Candidate
    level: float
    n: int


@dataclass(frozen=True, eq=False)
class Samples:
    """One batch of measured requests, in the order they were sent (milliseconds).

    The successful requests' TTFT, TPOT and E2E latency (aligned per request), their
    output tokens, and how many further requests failed."""

    ttft: FloatArray
    tpot: FloatArray
    e2e: FloatArray
    output_tokens: FloatArray = field(default_factory=lambda: np.empty(0))
    n_errors: int = 0
    # The least memory headroom (GiB) the engine reported while it served the batch; None:
    # not reported. What the contract's `memory_headroom_min_gib` is checked against.
    headroom_gib: float | None = None

    def __post_init__(self) -> None:
        for name in ("ttft", "tpot", "e2e", "output_tokens"):
            raw = np.asarray(getattr(self, name), dtype=np.float64).ravel()
            if raw.size and not np.all(np.isfinite(raw) & (raw >= 0)):
                raise ValueError(f"samples.{name} must hold finite numbers >= 0")
            object.__setattr__(self, name, as_samples(raw))
        n = len(self.e2e)
        if len(self.ttft) != n or len(self.tpot) != n:
            raise ValueError("samples.ttft, tpot and e2e must be aligned per request")
        if len(self.output_tokens) not in (0, n):
            raise ValueError("samples.output_tokens must be aligned per request (or empty)")
        if isinstance(self.n_errors, bool) or not isinstance(self.n_errors, int) or self.n_errors < 0:
            raise ValueError("samples.n_errors must be a whole number >= 0")
        h = self.headroom_gib
        if h is not None and (isinstance(h, bool) or not isinstance(h, int | float) or not np.isfinite(h)):
            raise ValueError("samples.headroom_gib must be a finite number (GiB) or None")

    @property
    def n_requests(self) -> int:
        return len(self.e2e) + self.n_errors


@dataclass(frozen=True, eq=False)
class Record:
    """One recorded batch: what a resumed advisor replays."""

    candidate: Candidate
    level: float
    samples: Samples
