"""Per-request samples of one load level, shaped like the harness's records
(`worker.harness.results.requests.RequestRecord`): a closed loop of `concurrency` clients or Poisson
arrivals at `rate`, TTFT and per-step latency that grow with load, speculative steps that
deliver 1 + (accepted drafts) tokens per chunk, and each engine's way of reporting
(vLLM: per-chunk token ids and usage; TGI: no per-chunk counts under speculation;
Transformers: steps and per-request draft counts).

Drawn with numpy per level; the records are built with `model_construct` (the level and
the whole result are then checked by the harness's own models where they are built)."""

from __future__ import annotations

import heapq
import zlib
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from worker.harness.results.requests import RequestRecord, RequestSpeculation
from worker.harness.stats import tpot_ms

GREEDY_MISMATCH = {"good": 0.0, "mixed": 0.006, "poor": 0.03}


@dataclass(frozen=True)
class ArmShape:
    """How one arm behaves: its speculation and its engine's speed at the lowest load."""

    server: str  # "vllm" | "tgi" | "transformers" | "generic"
    k: int  # speculative tokens per step (0: no speculation)
    acceptance: float  # chance each drafted token is accepted (in order)
    ttft_ms: float
    step_ms: float
    load_factor: float  # relative growth of a step per extra concurrent request
    error_rate: float


@dataclass(frozen=True)
class Prompt:
    id: str
    text: str


@cache
def _prompt_tokens(prompt_id: str, max_tokens: int) -> tuple[int, tuple[int, ...]]:
    """A prompt's greedy output: its length and token ids, the same for both arms (the
    same model decodes it; speculation must not change it)."""
    rng = np.random.default_rng(zlib.crc32(f"{prompt_id}/{max_tokens}".encode()))
    n = (
        max_tokens
        if rng.random() < 0.15
        else int(np.clip(rng.lognormal(np.log(0.55 * max_tokens), 0.35), 2, max_tokens))
    )
    return n, tuple(int(x) for x in rng.integers(3, 128_000, n))


def _steps(rng: np.random.Generator, shape: ArmShape, rows: int, width: int) -> np.ndarray:
    """Tokens per decoding step: 1, plus the drafts accepted before the first refusal."""
    if shape.k == 0:
        return np.ones((rows, width), dtype=np.int64)
    accepted = np.cumprod(rng.random((rows, width, shape.k)) < shape.acceptance, axis=2).sum(axis=2)
    return 1 + accepted


def level_records(
    rng: np.random.Generator,
    shape: ArmShape,
    prompts: list[Prompt],
    *,
    concurrency: int | None,
    rate: float | None,
    max_tokens: int,
    mismatch: float,
) -> tuple[list[RequestRecord], float, dict[str, int]]:
    """(records in send order, the level's duration in seconds, speculation counters)."""
    n = len(prompts)
    lengths = np.array([_prompt_tokens(p.id, max_tokens)[0] for p in prompts])
    load = (
        concurrency
        if concurrency is not None
        else max(1.0, (rate or 1.0) * shape.step_ms * lengths.mean() / 1000)
    )
    slow = 1 + shape.load_factor * (load - 1)
    sizes = _steps(rng, shape, n, max_tokens)
    ends = sizes.cumsum(axis=1)
    chunks = (ends < lengths[:, None]).sum(axis=1) + 1  # chunks until the length is reached
    gaps = shape.step_ms * slow * rng.lognormal(0, 0.12, (n, max_tokens)) * (1 + 0.02 * (sizes - 1))
    ttft = shape.ttft_ms * (1 + 0.5 * shape.load_factor * (load - 1)) * rng.lognormal(0, 0.15, n)
    failed = rng.random(n) < shape.error_rate
    spec = {"drafts": 0, "draft_tokens": 0, "accepted_tokens": 0}
    pieces: list[tuple[list[int], list[float]] | None] = []
    e2e_all = []
    for i in range(n):
        if failed[i]:
            pieces.append(None)
            e2e_all.append(float(ttft[i]))
            continue
        m = int(chunks[i])
        per_chunk = sizes[i, :m].tolist()
        per_chunk[-1] -= int(ends[i, m - 1]) - int(lengths[i])  # the last step stops at the length
        offsets = (ttft[i] + np.concatenate(([0.0], gaps[i, 1:m].cumsum()))).tolist()
        pieces.append((per_chunk, offsets))
        e2e_all.append(offsets[-1])
        spec["drafts"] += m
        spec["draft_tokens"] += m * shape.k
        spec["accepted_tokens"] += int(lengths[i]) - m if shape.k else 0
    sends, scheduled = _sends(rng, e2e_all, concurrency, rate)
    records: list[RequestRecord] = []
    for i, prompt in enumerate(prompts):
        base: dict[str, Any] = {
            "prompt_id": prompt.id,
            "send_s": sends[i],
            "scheduled_s": scheduled[i] if scheduled else None,
        }
        piece = pieces[i]
        if piece is None:
            error = "HTTP 503: the engine is overloaded; retry later"
            records.append(RequestRecord.model_construct(**base, e2e_ms=e2e_all[i], error=error))
        else:
            records.append(_record(base, prompt, shape, *piece, max_tokens, rng.random() < mismatch))
    duration = max((s + e / 1000 for s, e in zip(sends, e2e_all, strict=True)), default=0.0)
    return records, duration, spec


def _record(
    base: dict[str, Any],
    prompt: Prompt,
    shape: ArmShape,
    per_chunk: list[int],
    offsets: list[float],
    max_tokens: int,
    changed: bool,
) -> RequestRecord:
    m, n_tok = len(per_chunk), sum(per_chunk)
    # Result schema 2, as the harness writes it: offsets in whole microseconds, and every
    # figure computed from those rounded offsets.
    offsets_us = [round(x * 1000.0) for x in offsets]
    first, last = offsets_us[0] / 1000.0, offsets_us[-1] / 1000.0
    token_ids = list(_prompt_tokens(prompt.id, max_tokens)[1])
    text = prompt.text[: 4 * n_tok]
    if changed:  # speculation changed the greedy output (a real, measured risk)
        token_ids[-1] = (token_ids[-1] + 1) % 128_000
        text = text[:-1] + "?"
    fields: dict[str, Any] = {
        **base,
        "ttft_ms": first,
        "tpot_ms": tpot_ms(first, last, n_tok),
        "e2e_ms": last,
        "chunk_offsets_us": offsets_us,
        "output_tokens": n_tok,
        "output_text": text,
        "finish_reason": "length" if n_tok == max_tokens else "stop",
    }
    if shape.server == "vllm":
        fields |= {
            "chunk_tokens": per_chunk,
            "chunk_tokens_source": "token_ids",
            "output_token_ids": token_ids,
        }
        fields["output_tokens_source"] = "usage"
    elif shape.server == "transformers":
        fields |= {"chunk_tokens": per_chunk, "chunk_tokens_source": "steps", "output_token_ids": token_ids}
        fields["output_tokens_source"] = "chunks"
        if shape.k:
            fields["speculation"] = RequestSpeculation.model_construct(
                draft_tokens=m * shape.k, accepted_tokens=n_tok - m, drafts=m
            )
    else:  # TGI and the like: usage at the end; per-chunk counts only when there is one per chunk
        fields["output_tokens_source"] = "usage"
        if m == n_tok:
            fields |= {"chunk_tokens": [1] * m, "chunk_tokens_source": "one_per_chunk"}
    return RequestRecord.model_construct(**fields)


def _sends(
    rng: np.random.Generator, e2e_ms: list[float], concurrency: int | None, rate: float | None
) -> tuple[list[float], list[float] | None]:
    """Send times (s from the level's start): each of `concurrency` clients sends its next
    request when its last one ends; or Poisson arrivals at `rate`, sent a little late."""
    if concurrency is not None:
        slots = [(j * 0.0005, j) for j in range(concurrency)]
        heapq.heapify(slots)
        sends = []
        for e2e in e2e_ms:
            free, j = heapq.heappop(slots)
            sent = free + float(rng.uniform(0.0001, 0.0008))
            sends.append(sent)
            heapq.heappush(slots, (sent + e2e / 1000, j))
        return sends, None
    assert rate is not None
    scheduled = np.cumsum(rng.exponential(1 / rate, len(e2e_ms))).tolist()
    return [s + float(rng.exponential(0.0004)) for s in scheduled], scheduled
