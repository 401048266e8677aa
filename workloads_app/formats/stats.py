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

Every figure is exact, whatever the size of the workload, and memory stays flat: the
records are read back from the upload's scratch file a conversation at a time, and the
values a distribution needs (all of them, for its quantiles) go to that file and are read
back sorted, in chunks. No sketch, no sample. What is held in memory is one conversation's
3-grams (for `ngram_overlap`) and a chunk of sorted values.
"""

from __future__ import annotations

import itertools
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from worker.workloads.records import TOKEN_PATTERN, Record, estimate_tokens, record_tokens
from workloads_app.formats.reading import Imported, imported_records
from workloads_app.formats.scratch import Scratch

NGRAM = 3
HIST_BINS = 30
QUANTILES = (0.5, 0.9, 0.99)
# Sorted values read back at a time.
CHUNK_ROWS = 4096
_ID = struct.Struct(">Q")

T = TypeVar("T")


def _lerp(a: float, b: float, t: float) -> float:
    # numpy's linear interpolation (numpy/lib/function_base.py `_lerp`), so quantiles are
    # the ones np.quantile(method="linear") gives.
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def distribution(values: Sequence[float]) -> dict[str, Any] | None:
    """The distribution of `values` (a list: for callers that have one)."""
    with Scratch() as scratch:
        for v in values:
            scratch.insert("INSERT INTO vals VALUES ('v', ?)", (float(v),))
        return _distribution(scratch, "v")


def _distribution(scratch: Scratch, kind: str) -> dict[str, Any] | None:
    """Mean, quantiles (as np.quantile), max and a histogram (as np.histogram) of the
    values of `kind`, read back sorted a chunk at a time."""
    n, lo, hi, distinct = scratch.execute(
        "SELECT COUNT(*), MIN(v), MAX(v), COUNT(DISTINCT v) FROM vals WHERE kind = ?", (kind,)
    ).fetchone()
    if not n:
        return None
    bins = max(1, min(HIST_BINS, distinct))
    edges = np.histogram_bin_edges(np.empty(0), bins=bins, range=(lo, hi if hi > lo else hi + 1))
    counts = np.zeros(bins, dtype=np.int64)
    positions = [(n - 1) * q for q in QUANTILES]
    wanted = {i for h in positions for i in (int(h), min(int(h) + 1, n - 1))}
    at: dict[int, float] = {}
    total, seen = 0.0, 0
    cursor = scratch.execute("SELECT v FROM vals WHERE kind = ? ORDER BY v", (kind,))
    while seen < n:
        # Straight from the cursor: no list of rows besides the chunk.
        chunk = np.fromiter((r[0] for r in itertools.islice(cursor, CHUNK_ROWS)), dtype=float)
        if not len(chunk):
            break
        counts += np.histogram(chunk, bins=edges)[0]
        total += float(chunk.sum())
        for i in wanted:
            if seen <= i < seen + len(chunk):
                at[i] = float(chunk[i - seen])
        seen += len(chunk)
    q = [_lerp(at[int(h)], at[min(int(h) + 1, n - 1)], h - int(h)) for h in positions]
    return {
        "count": n,
        "mean": round(total / n, 3),
        "p50": round(q[0], 3),
        "p90": round(q[1], 3),
        "p99": round(q[2], 3),
        "max": round(float(hi), 3),
        "histogram": {"edges": [round(float(e), 3) for e in edges], "counts": [int(c) for c in counts]},
    }


def _own_text(r: Record) -> str:
    if r.prompt is not None:
        return r.prompt
    return "\n".join(m.content for m in r.messages or [])


def _grams(tokens: list[str]) -> Iterator[tuple[str, ...]]:
    return (tuple(tokens[i : i + NGRAM]) for i in range(len(tokens) - NGRAM + 1))


class _Context:
    """A conversation's context so far, as the set of its 3-grams (and its last tokens, for
    the 3-grams that span into what comes next): what prompt lookup can copy from."""

    def __init__(self) -> None:
        self.grams: set[tuple[str, ...]] = set()
        self.tail: list[str] = []

    def overlap(self, text: str, reference: str) -> float | None:
        """The share of the reference's 3-grams found in the context plus `text`."""
        ref = TOKEN_PATTERN.findall(reference)
        if len(ref) < NGRAM:
            return None
        own = set(_grams(self.tail + TOKEN_PATTERN.findall(text)))
        wanted = list(_grams(ref))
        return sum(1 for g in wanted if g in own or g in self.grams) / len(wanted)

    def extend(self, *texts: str) -> None:
        # Texts are joined by newlines in the context; tokens never span a newline.
        tokens = self.tail + [t for text in texts for t in TOKEN_PATTERN.findall(text)]
        self.grams.update(_grams(tokens))
        self.tail = tokens[-(NGRAM - 1) :]


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _common_ids(a: bytes, b: bytes) -> int:
    """Leading hash ids two keys (8 bytes an id) share."""
    return _common_prefix(a.hex(), b.hex()) // (2 * _ID.size)


def _neighbour_shares(
    ordered: Iterable[T], common: Callable[[T, T], int], size: Callable[[T], int]
) -> Iterator[float]:
    """For each item in sorted order, the share of it its longest common prefix with any
    other covers: in sorted order that other is a neighbour (so three at a time suffice)."""
    window: list[T] = []
    for item in ordered:
        window.append(item)
        if len(window) == 2:
            yield _share(window[0], None, window[1], common, size)
        elif len(window) == 3:
            yield _share(window[1], window[0], window[2], common, size)
            window.pop(0)
    if len(window) == 2:
        yield _share(window[1], window[0], None, common, size)


def _share(
    item: T, before: T | None, after: T | None, common: Callable[[T, T], int], size: Callable[[T], int]
) -> float:
    best = max(
        common(item, before) if before is not None else 0, common(item, after) if after is not None else 0
    )
    return best / size(item) if size(item) else 0.0


def _shared_prefix(scratch: Scratch) -> dict[str, Any] | None:
    run = scratch.execute
    shares = [0.0, 0, 0]  # sum, count, at least half shared

    def count(values: Iterable[float]) -> None:
        for s in values:
            shares[0] += s
            shares[1] += 1
            shares[2] += s >= 0.5

    texts = (t for (t,) in run("SELECT t FROM texts ORDER BY t"))
    count(_neighbour_shares(texts, _common_prefix, len))
    keys = (k for (k,) in run("SELECT k FROM prefixes ORDER BY k"))
    count(_neighbour_shares(keys, _common_ids, lambda k: len(k) // _ID.size))
    if not shares[1]:
        return None
    (systems,) = run(
        "SELECT COUNT(DISTINCT json_extract(canonical, '$.messages[0].content')) FROM records "
        "WHERE json_extract(canonical, '$.messages[0].role') = 'system'"
    ).fetchone()
    top = run(
        "SELECT json_extract(canonical, '$.messages[0].content') AS c, COUNT(*) FROM records "
        "WHERE json_extract(canonical, '$.messages[0].role') = 'system' "
        "GROUP BY c ORDER BY COUNT(*) DESC, MIN(pos) LIMIT 1"
    ).fetchone()
    return {
        "mean_share": round(shares[0] / shares[1], 4),
        "requests_half_shared": int(shares[2]),
        "system_prompts": int(systems),
        "top_system_prompt_requests": int(top[1]) if top else 0,
        "top_system_prompt_tokens": estimate_tokens(top[0]) if top else 0,
    }


def _id_key(ids: list[int]) -> bytes:
    # Offset to unsigned, big-endian: bytewise order of keys is the order of the id tuples.
    return b"".join(_ID.pack(i + 2**63) for i in ids)


def workload_stats(workload: Imported | Sequence[Record]) -> dict[str, Any]:
    imported = workload if isinstance(workload, Imported) else imported_records(workload, Scratch())
    scratch = imported.scratch
    put = scratch.insert
    output_source = Counter[str]()
    turn_counts = Counter[int]()
    conversations = size = 0
    current: str | None = None
    context = _Context()
    history_tokens = 0
    arrivals = 0
    first_arrival = last_arrival = 0.0
    for _, r in imported.iter_records(by_conversation=True):
        if r.conversation is None or r.conversation != current:
            if size:
                turn_counts[size] += 1
            conversations, size, current = conversations + 1, 0, r.conversation
            context, history_tokens = _Context(), 0
        size += 1
        own = record_tokens(r)
        put("INSERT INTO vals VALUES ('prompt', ?)", (own,))
        put("INSERT INTO vals VALUES ('context', ?)", (history_tokens + own,))
        if r.reference is not None:
            out: int | None = estimate_tokens(r.reference)
            output_source["reference"] += 1
        elif r.max_tokens is not None:
            out = r.max_tokens
            output_source["max_tokens"] += 1
        else:
            out = None
        if out is not None:
            put("INSERT INTO vals VALUES ('output', ?)", (out,))
        if r.synthetic_prompt is None:
            text = _own_text(r)
            put("INSERT INTO texts VALUES (?)", (text,))
        else:
            text = ""
            put("INSERT INTO prefixes VALUES (?, ?)", (_id_key(r.synthetic_prompt.hash_ids), 0))
        if r.reference is not None and text:
            share = context.overlap(text, r.reference)
            if share is not None:
                put("INSERT INTO vals VALUES ('overlap', ?)", (share,))
        if r.conversation is not None:  # a request of its own has no later turn to serve
            context.extend(text, r.reference or "")
        history_tokens += own + (out or 0)
        if r.arrival_s is not None:
            first_arrival = min(first_arrival, r.arrival_s) if arrivals else r.arrival_s
            last_arrival = max(last_arrival, r.arrival_s) if arrivals else r.arrival_s
            arrivals += 1
    if size:
        turn_counts[size] += 1
    arrival = None
    if arrivals:
        span = last_arrival - first_arrival
        arrival = {
            "requests": arrivals,
            "span_s": round(span, 3),
            "rate_per_s": round((arrivals - 1) / span, 4) if span > 0 else None,
        }
    requests = imported.requests
    output = _distribution(scratch, "output")
    overlap = _distribution(scratch, "overlap")
    return {
        "token_estimate": "words and punctuation marks (no tokenizer on the control plane)",
        "requests": requests,
        "conversations": conversations,
        "prompt_tokens": _distribution(scratch, "prompt"),
        "context_tokens": _distribution(scratch, "context"),
        "output_tokens": output | {"source": dict(output_source)} if output else None,
        "turns": {
            "per_conversation": {str(k): v for k, v in sorted(turn_counts.items())},
            "mean": round(requests / conversations, 3) if conversations else 0,
            "max": max(turn_counts) if turn_counts else 0,
        },
        "ngram_overlap": overlap | {"n": NGRAM} if overlap else None,
        "shared_prefix": _shared_prefix(scratch),
        "arrival": arrival,
    }
