"""What the gate consumes: per arm, lane and load level, the successful requests' samples.

Arrays hold successful requests only; `n_requests`/`n_errors` say how many were attempted
and failed, so the gate can judge the error rate and the sample size.
`gate_input_from_harness()` (adapter.py) builds these from the harness's result JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from benchmarks_app.gate.metrics import LATENCY_BASES

LevelKind = Literal["concurrency", "rate"]
FloatArray = npt.NDArray[np.float64]


class GateInputError(ValueError):
    """Input the gate cannot use (unknown metric, malformed rule or sample); the message says why."""


def as_samples(values: object) -> FloatArray:
    """A 1-D float array of the finite, non-negative values (None/NaN/negatives dropped)."""
    if values is None:
        return np.empty(0, dtype=np.float64)
    try:
        arr = np.asarray(
            [np.nan if v is None else v for v in values] if isinstance(values, list | tuple) else values,
            dtype=np.float64,
        ).ravel()
    except (TypeError, ValueError) as exc:
        raise GateInputError(f"samples must be numbers: {exc}") from exc
    return arr[np.isfinite(arr) & (arr >= 0)]


@dataclass(frozen=True, eq=False)
class ArmLevel:
    """One arm (baseline or candidate) at one lane and load level.

    `samples` maps a latency base (`ttft`, `tpot`, `e2e`, `itl_chunk`) to milliseconds;
    `itl_chunk` pools every inter-chunk gap of every successful request. Per-request
    samples are in the order the requests were sent (the adapter sorts by `send_s`): the
    gate tests successive requests for autocorrelation (autocorrelation.py).
    `output_tokens` and `e2e_ms` are aligned per successful request (the throughput
    estimators need the pairs). The scalars are the harness's measured level values,
    reported beside the gate's own estimate, or None when not reported.
    """

    lane: str
    level_kind: LevelKind
    level: float
    samples: Mapping[str, FloatArray]
    output_tokens: FloatArray = field(default_factory=lambda: np.empty(0))
    e2e_ms: FloatArray = field(default_factory=lambda: np.empty(0))
    n_requests: int = 0
    n_errors: int = 0
    output_tokens_per_s: float | None = None
    requests_per_s: float | None = None

    def __post_init__(self) -> None:
        if self.level_kind not in ("concurrency", "rate"):
            raise GateInputError(f"level_kind must be 'concurrency' or 'rate', not {self.level_kind!r}")
        if not np.isfinite(self.level) or self.level <= 0:
            raise GateInputError(f"level must be a positive number, not {self.level!r}")
        if unknown := set(self.samples) - set(LATENCY_BASES):
            raise GateInputError(f"unknown sample names {sorted(unknown)}; known: {', '.join(LATENCY_BASES)}")
        if len(self.output_tokens) != len(self.e2e_ms):
            raise GateInputError("output_tokens and e2e_ms must be aligned per request")
        # Frozen, but cleaned once here so that the statistics never meet a NaN or a negative.
        object.__setattr__(self, "samples", {k: as_samples(v) for k, v in self.samples.items()})
        tokens = np.asarray(self.output_tokens, dtype=np.float64)
        e2e = np.asarray(self.e2e_ms, dtype=np.float64)
        keep = np.isfinite(tokens) & np.isfinite(e2e) & (tokens >= 0) & (e2e > 0)
        object.__setattr__(self, "output_tokens", tokens[keep])
        object.__setattr__(self, "e2e_ms", e2e[keep])

    @property
    def key(self) -> tuple[str, str, float]:
        return (self.lane, self.level_kind, float(self.level))

    @property
    def n_successes(self) -> int:
        return max(self.n_requests - self.n_errors, 0)


@dataclass(frozen=True)
class StabilityInput:
    """Greedy output stability of one lane: the share of candidate outputs token-identical
    to the baseline's for the same prompt, over `compared` prompts (None: count unknown)."""

    exact_match_rate: float
    compared: int | None = None
    first_divergence: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.exact_match_rate <= 1:
            raise GateInputError(f"exact_match_rate must be in [0, 1], not {self.exact_match_rate!r}")


@dataclass(frozen=True)
class MemoryInput:
    """The candidate's memory: the least headroom (GiB) seen over its levels, and the peak."""

    headroom_gib: float | None
    peak_gib: float | None = None


@dataclass(frozen=True, eq=False)
class EarlierVersion:
    """One of the route's earlier approved versions, for `measurement.history`: its number,
    the release that approved it, and that release's benchmark's candidate arm (empty: the
    version was approved without a stored result, e.g. a route's first version)."""

    number: int
    release_id: int
    candidate: Sequence[ArmLevel] = ()
    # lane → the day its raw samples were pruned by the retention setting (a lane pruned
    # has no arm here: the comparison says why it is missing).
    pruned: Mapping[str, str] = field(default_factory=dict)

    def lanes(self) -> set[str]:
        return {a.lane for a in self.candidate}


@dataclass(frozen=True, eq=False)
class GateInput:
    baseline: Sequence[ArmLevel]
    candidate: Sequence[ArmLevel]
    stability: Mapping[str, StabilityInput] = field(default_factory=dict)
    memory: MemoryInput | None = None
    # The route's last approved versions, newest first (read only by `measurement.history`).
    history: Sequence[EarlierVersion] = ()

    def __post_init__(self) -> None:
        for arm_name, arm in (("baseline", self.baseline), ("candidate", self.candidate)):
            keys = [a.key for a in arm]
            if len(keys) != len(set(keys)):
                raise GateInputError(f"{arm_name} has the same lane and level twice")
