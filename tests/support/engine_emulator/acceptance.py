"""Random acceptance: how many tokens each verification step carries, drawn, not cycled.

One definition for the emulator (``--acceptance``, one stream at a time) and for the
in-process sampler of the advisor's known truth (``tests/support/advice_truth.py``,
thousands of requests at once), so the two serve the same distribution.

Each drafted token is accepted with probability ``alpha`` until the first rejection (the
i.i.d. acceptance model of Leviathan et al. 2023, "Fast Inference from Transformers via
Speculative Decoding", §3.1), at most ``draft_tokens`` of them; the step also carries the
target's own token, so it holds ``1 + accepted`` tokens and its mean is
``(1 - alpha**(k + 1)) / (1 - alpha)``. A step's duration is scaled per request by a
log-normal jitter of ``sigma`` (the request-to-request noise of a real engine).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


def stream_rng(seed: int, stream: int) -> np.random.Generator:
    """The generator of one stream: a function of the seed and the stream's index only."""
    return np.random.default_rng([seed, stream])


def draw_steps(rng: np.random.Generator, alpha: float, draft_tokens: int, tokens: int, n: int) -> IntArray:
    """Tokens per step of ``n`` requests of ``tokens`` tokens each: shape ``(n, tokens)``,
    each row's steps first, then zeros; the last step is cut to the request's length."""
    if not 0 <= alpha < 1:
        raise ValueError("alpha must be in [0, 1)")
    if draft_tokens < 0 or tokens < 1 or n < 0:
        raise ValueError("draft_tokens >= 0, tokens >= 1 and n >= 0")
    if draft_tokens == 0 or alpha == 0:
        accepted = np.zeros((n, tokens), dtype=np.int64)
    else:
        # numpy's geometric counts trials to the first success; minus one: acceptances
        # before the first rejection.
        accepted = np.minimum(rng.geometric(1.0 - alpha, size=(n, tokens)) - 1, draft_tokens)
    steps = 1 + accepted
    before = np.cumsum(steps, axis=1) - steps  # tokens already written before each step
    return np.clip(tokens - before, 0, steps).astype(np.int64)


def draw_jitter(rng: np.random.Generator, sigma: float, n: int) -> npt.NDArray[np.float64]:
    """Per-request multipliers of the step time, median 1."""
    if sigma < 0:
        raise ValueError("sigma must be >= 0")
    return np.exp(sigma * rng.standard_normal(n)) if sigma > 0 else np.ones(n)
