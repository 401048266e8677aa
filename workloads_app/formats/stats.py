"""What a reviewer reads about a workload, computed once at import and stored with it.

Lengths are estimated tokens (words and punctuation marks, `estimate_tokens`): the
control plane has no tokenizer; Mooncake traces give real token counts and those are
used as they are. A request's *context* is what the target reads for it: for a later
turn of a conversation, the earlier turns and their recorded answers too.

- `prompt_tokens`, `context_tokens`, `output_tokens`: distributions (mean, quantiles, max,
  a histogram). Output lengths are the reference outputs' where recorded, else the
  requests' `max_tokens` (`output_tokens.source` says which, per request counts).
- `turns`: conversations by number of turns.
- `ngram_overlap`: for requests with a reference output, the share of the reference's
  3-grams that occur in its context. Prompt lookup (n-gram speculation) proposes tokens
  by copying what follows a matching n-gram in the context, so a lane whose answers
  copy from their prompts (extraction, summaries, code edits) shows a high share, and
  open-ended chat a low one: an indicator of what prompt lookup can gain, not a promise.
- `shared_prefix`: how much of each prompt another request starts with too (what prefix
  caching and shared system prompts save); the distinct system prompts.
- `arrival`: for traces, the span and the mean rate of the recorded arrivals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from worker.workloads.records import TOKEN_PATTERN, Record, estimate_tokens, record_tokens

NGRAM = 3
HIST_BINS = 30


def distribution(values: Sequence[float]) -> dict[str, Any] | None:
    if not values:
        return None
    arr = np.asarray(values, dtype=float)
    hi = float(arr.max())
    bins = max(1, min(HIST_BINS, len(set(values))))
    counts, edges = np.histogram(arr, bins=bins, range=(float(arr.min()), hi if hi > arr.min() else hi + 1))
    q = np.quantile(arr, [0.5, 0.9, 0.99])
    return {
        "count": len(values),
        "mean": round(float(arr.mean()), 3),
        "p50": round(float(q[0]), 3),
        "p90": round(float(q[1]), 3),
        "p99": round(float(q[2]), 3),
        "max": round(hi, 3),
        "histogram": {"edges": [round(float(e), 3) for e in edges], "counts": [int(c) for c in counts]},
    }


def _own_text(r: Record) -> str:
    if r.prompt is not None:
        return r.prompt
    return "\n".join(m.content for m in r.messages or [])


def _conversations(records: Sequence[Record]) -> list[list[Record]]:
    grouped: dict[str, list[Record]] = {}
    for i, r in enumerate(records):
        grouped.setdefault(r.conversation if r.conversation is not None else f"\0{i}", []).append(r)
    return [sorted(turns, key=lambda r: r.turn or 0) for turns in grouped.values()]


def _ngrams(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + NGRAM]) for i in range(len(tokens) - NGRAM + 1)}


def _overlap(context: str, reference: str) -> float | None:
    ref = TOKEN_PATTERN.findall(reference)
    if len(ref) < NGRAM:
        return None
    wanted = [tuple(ref[i : i + NGRAM]) for i in range(len(ref) - NGRAM + 1)]
    have = _ngrams(TOKEN_PATTERN.findall(context))
    return sum(1 for g in wanted if g in have) / len(wanted)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _shared_prefix(records: Sequence[Record]) -> dict[str, Any] | None:
    texts = [_own_text(r) for r in records if r.synthetic_prompt is None]
    synthetic = [r.synthetic_prompt for r in records if r.synthetic_prompt is not None]
    shares: list[float] = []
    if len(texts) > 1:
        # In sorted order a string's longest common prefix with any other is with a neighbour.
        ordered = sorted(texts)
        for i, text in enumerate(ordered):
            best = max(
                _common_prefix(text, ordered[i - 1]) if i else 0,
                _common_prefix(text, ordered[i + 1]) if i + 1 < len(ordered) else 0,
            )
            shares.append(best / len(text) if text else 0.0)
    if len(synthetic) > 1:
        keys = sorted(tuple(s.hash_ids) for s in synthetic)
        for i, ids in enumerate(keys):

            def same(other: tuple[int, ...], ids: tuple[int, ...] = ids) -> int:
                return next(
                    (k for k, (x, y) in enumerate(zip(ids, other, strict=False)) if x != y),
                    min(len(ids), len(other)),
                )

            best = max(same(keys[i - 1]) if i else 0, same(keys[i + 1]) if i + 1 < len(keys) else 0)
            shares.append(best / len(ids))
    systems = Counter(m.content for r in records for m in (r.messages or [])[:1] if m.role == "system")
    if not shares:
        return None
    top = systems.most_common(1)
    return {
        "mean_share": round(float(np.mean(shares)), 4),
        "requests_half_shared": sum(1 for s in shares if s >= 0.5),
        "system_prompts": len(systems),
        "top_system_prompt_requests": top[0][1] if top else 0,
        "top_system_prompt_tokens": estimate_tokens(top[0][0]) if top else 0,
    }


def workload_stats(records: Sequence[Record]) -> dict[str, Any]:
    prompt_tokens: list[float] = []
    context_tokens: list[float] = []
    output_tokens: list[float] = []
    output_source = Counter[str]()
    overlaps: list[float] = []
    conversations = _conversations(records)
    for turns in conversations:
        history_text: list[str] = []
        history_tokens = 0
        for r in turns:
            own = record_tokens(r)
            prompt_tokens.append(own)
            context_tokens.append(history_tokens + own)
            if r.reference is not None:
                out = estimate_tokens(r.reference)
                output_source["reference"] += 1
            elif r.max_tokens is not None:
                out = r.max_tokens
                output_source["max_tokens"] += 1
            else:
                out = None
            if out is not None:
                output_tokens.append(out)
            text = _own_text(r) if r.synthetic_prompt is None else ""
            if r.reference is not None and text:
                share = _overlap("\n".join([*history_text, text]), r.reference)
                if share is not None:
                    overlaps.append(share)
            history_text += [text, r.reference or ""]
            history_tokens += own + (out or 0)
    turn_counts = Counter(len(t) for t in conversations)
    arrivals = sorted(r.arrival_s for r in records if r.arrival_s is not None)
    arrival = None
    if arrivals:
        span = arrivals[-1] - arrivals[0]
        arrival = {
            "requests": len(arrivals),
            "span_s": round(span, 3),
            "rate_per_s": round((len(arrivals) - 1) / span, 4) if span > 0 else None,
        }
    return {
        "token_estimate": "words and punctuation marks (no tokenizer on the control plane)",
        "requests": len(records),
        "conversations": len(conversations),
        "prompt_tokens": distribution(prompt_tokens),
        "context_tokens": distribution(context_tokens),
        "output_tokens": (
            (distribution(output_tokens) or {}) | {"source": dict(output_source)} if output_tokens else None
        ),
        "turns": {
            "per_conversation": {str(k): v for k, v in sorted(turn_counts.items())},
            "mean": round(len(records) / len(conversations), 3) if conversations else 0,
            "max": max(turn_counts) if turn_counts else 0,
        },
        "ngram_overlap": (distribution(overlaps) or {}) | {"n": NGRAM} if overlaps else None,
        "shared_prefix": _shared_prefix(records),
        "arrival": arrival,
    }
