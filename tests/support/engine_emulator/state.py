"""What the emulated engine has done: its counters, its truth records, its live settings.

Every counter is a sum over the steps actually written to a client, never a number
made up at scrape time, so a reader's before/after difference is exactly what it was
streamed in between. ``reset()`` is an engine restart: everything back to zero.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tests.support.engine_emulator.acceptance import draw_jitter, draw_steps, stream_rng
from tests.support.engine_emulator.config import Settings, check_pattern, parse_pattern

# SGLang's scheduler logs (and sets its spec gauges) every decode_log_interval steps;
# 40 is its default (python/sglang/srt/server_args.py, decode_log_interval).
SGLANG_DECODE_LOG_INTERVAL = 40


@dataclass
class Rank:
    """One SGLang data-parallel rank: its cumulative acceptance and the recent window."""

    accept_length_sum: int = 0  # tokens per verify step, the bonus token included
    accept_count: int = 0  # verify steps
    window: deque[tuple[int, int]] = field(
        default_factory=lambda: deque(maxlen=SGLANG_DECODE_LOG_INTERVAL)
    )  # (accepted drafts, proposed drafts) of the latest steps
    # The rank's share of the counters (vLLM: one `engine` series per data-parallel rank).
    drafts: int = 0
    draft_tokens: int = 0
    accepted: int = 0
    per_pos: list[int] = field(default_factory=list)


@dataclass
class Counters:
    requests: int = 0  # completed streams
    prompt_tokens: int = 0
    tokens: int = 0  # generated tokens written
    steps: int = 0  # decoding steps written (a verification step each, with speculation)
    drafts: int = 0
    draft_tokens: int = 0
    accepted: int = 0
    per_pos: list[int] = field(default_factory=list)  # accepted drafts per draft position
    skipped: list[int] = field(default_factory=list)  # TGI: accepted speculated tokens per step

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "tokens": self.tokens,
            "steps": self.steps,
            "drafts": self.drafts,
            "draft_tokens": self.draft_tokens,
            "accepted_tokens": self.accepted,
            "accepted_per_position": list(self.per_pos),
        }


def token_ids(prompt: str, n: int) -> list[int]:
    """Deterministic per prompt, so greedy outputs of two emulators match token for token."""
    seed = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:4], "big")
    return [(seed + 7919 * i) % 50_000 + 10 for i in range(n)]


class Engine:
    """The live state of one emulated engine process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pattern = list(settings.pattern)
        self.active = 0  # streams in flight, the one being planned included
        self.arrivals = 0  # requests with a known mode (the `flaky` mode's parity)
        self.planned = 0  # streams planned: the index of a drawn stream's generator
        self.truth: list[dict[str, Any]] = []
        self.reset()

    def reset(self) -> None:
        self.counters = Counters(per_pos=[0] * self.settings.draft_tokens)
        self.ranks = [Rank(per_pos=[0] * self.settings.draft_tokens) for _ in range(self.settings.dp_size)]
        self.arrivals = 0
        self.planned = 0
        self.truth.clear()

    def set_pattern(self, value: Any) -> list[int]:
        """For requests that arrive from now on (streams under way keep their plan)."""
        pattern = parse_pattern(value)
        check_pattern(self.settings, pattern)
        self.pattern = pattern
        return pattern

    def plan(self, max_tokens: int) -> list[int]:
        """Tokens per step of a new stream: the pattern, cycled, up to the limits."""
        return self.plan_stream(max_tokens)[0]

    def plan_stream(self, max_tokens: int) -> tuple[list[int], float]:
        """Tokens per step of a new stream and its step-time multiplier: with
        ``--acceptance``, drawn from the stream's own generator (acceptance.py), else the
        pattern, cycled; up to the limits."""
        limit = min(max_tokens, self.settings.output_tokens)
        s = self.settings
        self.planned += 1
        rng = stream_rng(s.model_seed, self.planned)
        jitter = float(draw_jitter(rng, s.step_jitter, 1)[0])
        if s.acceptance is not None:
            row = draw_steps(rng, s.acceptance, s.draft_tokens, limit, 1)[0]
            drawn = [int(k) for k in row if k > 0]
            return (drawn[: s.chunks] if s.chunks else drawn), jitter
        pattern, sizes, total = self.pattern, [], 0
        while total < limit and (self.settings.chunks == 0 or len(sizes) < self.settings.chunks):
            k = min(pattern[len(sizes) % len(pattern)], limit - total)
            sizes.append(k)
            total += k
        return sizes, jitter

    def step_written(self, k: int, rank: int) -> None:
        """A step of ``k`` tokens reached the client: one draft of ``draft_tokens`` tokens
        with ``k - 1`` accepted (the last token is the target's own, the bonus token)."""
        c = self.counters
        c.steps += 1
        c.tokens += k
        c.skipped.append(k - 1)
        if not self.settings.speculative:
            return
        c.drafts += 1
        c.draft_tokens += self.settings.draft_tokens
        c.accepted += k - 1
        for pos in range(k - 1):
            c.per_pos[pos] += 1
        r = self.ranks[rank]
        r.drafts += 1
        r.draft_tokens += self.settings.draft_tokens
        r.accepted += k - 1
        for pos in range(k - 1):
            r.per_pos[pos] += 1
        r.accept_length_sum += k
        r.accept_count += 1
        r.window.append((k - 1, self.settings.draft_tokens))

    def stream_done(self, prompt_tokens: int, record: dict[str, Any]) -> None:
        self.counters.requests += 1
        self.counters.prompt_tokens += prompt_tokens
        self.truth.append(record)
