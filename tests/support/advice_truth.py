"""The advisor's known truth: a per-method acceptance/latency model per lane.

A cell is (lane, candidate): its per-token acceptance, the cost of drafting and of
verifying each drafted token, and its extra time to first token. The same cell is
(a) a configuration of the engine emulator (``emulator_args``: ``--acceptance``,
``--step-ms``, ``--step-per-stream-ms``, ``--ttft-ms``, ``--step-jitter``) and (b) an
in-process sampler (``sample``) that draws with the very functions the emulator draws with
(``tests.support.engine_emulator.acceptance``), so the benchmark can run thousands of
seeded trials in seconds and a test can hold the emulator to the sampler.

The schedule is the emulator's: at concurrency ``c`` (``c`` streams in flight) the first
step comes ``ttft_ms × j`` after arrival and one step every ``(step_ms +
step_per_stream_ms × c) × j`` after it, ``j`` the request's jitter. Verifying drafted
tokens costs more per stream as the batch grows, so speculation stops paying at some
load (the crossover): that is the shape the docs describe (speculation helps at low to
medium load).

Lanes: ``clear`` (one candidate clearly best), ``crossover`` (the best one's speedup
vanishes inside the load range), ``off`` (nothing beats the baseline), ``tie`` (two
candidates with the same truth and different assets: the answer is "can't tell", the
cheaper), ``guarded`` (the fastest candidate breaks a TTFT non-inferiority rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np

from advice_app.strategy import Candidate, Samples
from tests.support.engine_emulator.acceptance import draw_jitter, draw_steps

OUTPUT_TOKENS = 32
LEVELS = (1.0, 2.0, 4.0, 8.0, 16.0)
BASELINE_NAME = "off"


@dataclass(frozen=True)
class Lane:
    step_ms: float = 10.0
    step_per_stream_ms: float = 0.4
    ttft_ms: float = 20.0
    jitter: float = 0.08


@dataclass(frozen=True)
class Method:
    """One method's behaviour on one lane's workload."""

    alpha: float  # per-token acceptance
    draft_ms: float  # drafting, per drafted token, per step
    verify_ms: float  # verifying, per drafted token, per stream in flight, per step
    ttft_extra_ms: float = 0.0  # e.g. a draft model's own prefill


@dataclass(frozen=True)
class Cell:
    lane: Lane
    method: Method | None  # None: the baseline (speculation off)
    tokens: int

    @property
    def step_ms(self) -> float:
        return self.lane.step_ms + (self.method.draft_ms * self.tokens if self.method else 0.0)

    @property
    def step_per_stream_ms(self) -> float:
        extra = self.method.verify_ms * self.tokens if self.method else 0.0
        return self.lane.step_per_stream_ms + extra

    @property
    def ttft_ms(self) -> float:
        return self.lane.ttft_ms + (self.method.ttft_extra_ms if self.method else 0.0)

    @property
    def alpha(self) -> float:
        return self.method.alpha if self.method else 0.0

    def emulator_args(self) -> list[str]:
        args = [
            "--ttft-ms", str(self.ttft_ms),
            "--step-ms", str(self.step_ms),
            "--step-per-stream-ms", str(self.step_per_stream_ms),
            "--step-jitter", str(self.lane.jitter),
            "--output-tokens", str(OUTPUT_TOKENS),
            "--acceptance", str(self.alpha),
        ]  # fmt: skip
        if self.method is not None:
            claim = f'{{"method": "emulated", "num_speculative_tokens": {self.tokens}}}'
            args += ["--speculation", claim]
        else:
            args += ["--draft-tokens", "1"]  # acceptance 0: every step carries one token
        return args

    def sample(self, rng: np.random.Generator, concurrency: float, n: int) -> Samples:
        """``n`` requests at ``concurrency`` streams in flight, as the harness measures them."""
        steps = draw_steps(rng, self.alpha, self.tokens, OUTPUT_TOKENS, n)
        jitter = draw_jitter(rng, self.lane.jitter, n)
        n_steps = np.count_nonzero(steps, axis=1)
        step = (self.step_ms + self.step_per_stream_ms * concurrency) * jitter
        ttft = self.ttft_ms * jitter
        decode = (n_steps - 1) * step
        return Samples(
            ttft=ttft,
            tpot=decode / (OUTPUT_TOKENS - 1),
            e2e=ttft + decode,
            output_tokens=np.full(n, float(OUTPUT_TOKENS)),
        )


def _c(name: str, method: str, tokens: int, assets: int) -> Candidate:
    return Candidate(name=name, method=method, tokens=tokens, assets=assets)


NGRAM = Method(alpha=0.55, draft_ms=0.05, verify_ms=0.10)
DRAFT = Method(alpha=0.78, draft_ms=0.9, verify_ms=0.12, ttft_extra_ms=0.5)

# lane -> (its base, {candidate: method on that lane}); tokens from the candidate.
LANES: dict[str, tuple[Lane, dict[Candidate, Method]]] = {
    "clear": (
        Lane(),
        {
            _c("ngram-2", "ngram", 2, 0): NGRAM,
            _c("ngram-4", "ngram", 4, 0): NGRAM,
            _c("draft-3", "draft_model", 3, 1): DRAFT,
            _c("draft-5", "draft_model", 5, 1): DRAFT,
        },
    ),
    "crossover": (
        Lane(),
        {
            _c("ngram-3", "ngram", 3, 0): Method(alpha=0.6, draft_ms=0.05, verify_ms=0.9),
            _c("ngram-6", "ngram", 6, 0): Method(alpha=0.6, draft_ms=0.05, verify_ms=0.9),
            _c("draft-4", "draft_model", 4, 1): Method(alpha=0.5, draft_ms=1.5, verify_ms=0.9),
        },
    ),
    "off": (
        Lane(),
        {
            _c("ngram-3", "ngram", 3, 0): Method(alpha=0.08, draft_ms=0.3, verify_ms=0.3),
            _c("draft-4", "draft_model", 4, 1): Method(alpha=0.15, draft_ms=1.5, verify_ms=0.3),
        },
    ),
    "tie": (
        Lane(),
        {
            _c("draft-3", "draft_model", 3, 1): DRAFT,
            _c("eagle-3", "eagle", 3, 2): DRAFT,  # the same truth, one more asset
            _c("ngram-2", "ngram", 2, 0): Method(alpha=0.3, draft_ms=0.05, verify_ms=0.10),
        },
    ),
    "guarded": (
        Lane(),
        {
            # The fastest, but its draft model's prefill puts TTFT p90 ~30% above baseline.
            _c("draft-4", "draft_model", 4, 1): Method(
                alpha=0.8, draft_ms=0.6, verify_ms=0.12, ttft_extra_ms=6.0
            ),
            _c("ngram-3", "ngram", 3, 0): NGRAM,
        },
    ),
}

# The contract's rules every lane is judged by: TPOT p50 improved, TTFT p90 within 10%.
MEASUREMENT: Mapping[str, object] = {
    "improve": [{"metric": "tpot_p50", "min_ratio": 1.0, "confidence": 0.95}],
    "non_inferiority": [{"metric": "ttft_p90", "max_ratio": 1.10, "confidence": 0.95}],
}


def cell(lane: str, candidate: Candidate | None) -> Cell:
    base, methods = LANES[lane]
    if candidate is None or candidate.method == BASELINE_NAME:
        return Cell(base, None, 0)
    return Cell(base, methods[candidate], candidate.tokens)


def candidates(lane: str) -> list[Candidate]:
    return list(LANES[lane][1])


class Engine:
    """Measures a lane's requests in process: the advisor's caller, for tests and the benchmark."""

    def __init__(self, lane: str, seed: int) -> None:
        self.lane = lane
        self.seed = seed
        self.batches = 0

    def measure(self, candidate: Candidate, level: float, n: int) -> Samples:
        self.batches += 1
        rng = np.random.default_rng([self.seed, self.batches])
        return cell(self.lane, candidate).sample(rng, level, n)


@cache
def _true_sample(lane: str, candidate: Candidate | None, level: float) -> Samples:
    return cell(lane, candidate).sample(np.random.default_rng(12345), level, 40_000)


def true_quantile(lane: str, candidate: Candidate | None, level: float, base: str, q: float) -> float:
    """The q-quantile of a latency at a level, by 40,000 draws (about 0.5% precise)."""
    return float(np.quantile(getattr(_true_sample(lane, candidate, level), base), q))


def true_ratio(lane: str, candidate: Candidate, level: float, base: str = "tpot", q: float = 0.5) -> float:
    """The true improvement ratio (baseline / candidate) of a latency quantile."""
    return true_quantile(lane, None, level, base, q) / true_quantile(lane, candidate, level, base, q)


@dataclass(frozen=True)
class Truth:
    best: Candidate | None  # None: speculation off
    tie: bool  # the best two are within TIE_MARGIN: the answer is "can't tell", the cheaper
    values: dict[Candidate, float]
    excluded: dict[Candidate, str]


TIE_MARGIN = 0.01
NI_BOUND = 1.10


def truth(lane: str) -> Truth:
    """The right answer, by the advisor's own standard: the highest geometric mean over
    the levels of the TPOT p50 speedup, floored at 1 (above its crossover a candidate's
    schedule turns speculation off), among the candidates within the TTFT p90 bound and
    that beat the baseline somewhere; ties go to fewer assets."""
    values: dict[Candidate, float] = {}
    excluded: dict[Candidate, str] = {}
    for c in candidates(lane):
        worst_ttft = max(1 / true_ratio(lane, c, lv, "ttft", 0.9) for lv in LEVELS)
        if worst_ttft > NI_BOUND:
            excluded[c] = f"TTFT p90 {worst_ttft:.2f}x of baseline"
            continue
        ratios = [true_ratio(lane, c, lv) for lv in LEVELS]
        if max(ratios) <= 1.0:
            excluded[c] = "never beats the baseline"
            continue
        values[c] = float(np.exp(np.mean(np.log(np.maximum(ratios, 1.0)))))
    if not values:
        return Truth(None, False, values, excluded)
    ranked = sorted(values, key=lambda c: (-values[c], c.assets, c.name))
    top = ranked[0]
    tied = [c for c in ranked if values[c] >= values[top] * (1 - TIE_MARGIN)]
    best = min(tied, key=lambda c: (c.assets, c.name))
    return Truth(best, len(tied) > 1, values, excluded)
