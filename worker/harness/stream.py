"""Turning a recorded SSE exchange into a ``RequestRecord``.

While a stream is live the load generator only appends ``(perf_counter(), bytes)`` per
socket read; everything here runs after the level has finished, so JSON parsing never
delays another stream's timestamps. An SSE event's arrival time is the time of the read
that completed it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from worker.harness.results.requests import RequestRecord, RequestSpeculation
from worker.harness.stats import tpot_ms

MS = 1000.0


@dataclass(slots=True)
class Exchange:
    """What the load generator saw for one request (times from ``time.perf_counter``)."""

    prompt_id: str
    level_start: float
    scheduled: float | None = None
    sent: float = 0.0
    ended: float = 0.0
    status: int | None = None
    content_type: str = ""
    reads: list[tuple[float, bytes]] = field(default_factory=list)
    body: bytes = b""
    transport_error: str | None = None


@dataclass(slots=True)
class _Chunk:
    t: float
    text: str
    ntok: int | None  # None: this chunk says nothing about its token count
    token_ids: list[int] | None
    count_source: str | None


class StreamError(Exception):
    pass


def _events(reads: list[tuple[float, bytes]]) -> tuple[list[tuple[float, bytes]], bool]:
    """(time, payload) of each ``data:`` event, and whether ``[DONE]`` was seen."""
    events: list[tuple[float, bytes]] = []
    done = False
    pending = b""
    for t, data in reads:
        buf = pending + data
        lines = buf.split(b"\n")
        pending = lines.pop()
        for line in lines:
            line = line.rstrip(b"\r")
            if not line.startswith(b"data:"):
                continue  # blank separators, comments, "event:"/"id:" fields
            payload = line[5:].strip()
            if payload == b"[DONE]":
                done = True
            elif payload:
                events.append((t, payload))
    if pending.strip():
        raise StreamError("stream ended in the middle of an SSE line")
    return events, done


def _chunk(t: float, obj: dict[str, Any]) -> tuple[_Chunk | None, str | None]:
    """The chunk an event carries (None if none) and its finish_reason."""
    choices = obj.get("choices") or []
    if not choices:
        return None, None
    choice = choices[0]
    delta = choice.get("delta")
    if delta is not None:  # chat
        text = (delta.get("content") or "") + (delta.get("reasoning_content") or "")
    else:
        text = choice.get("text") or ""
    token_ids = choice.get("token_ids")
    ntok: int | None = None
    source: str | None = None
    if isinstance(token_ids, list):
        ntok, source = len(token_ids), "token_ids"
    else:
        token_ids = None
        logprobs = choice.get("logprobs")
        if isinstance(logprobs, dict):
            seq = logprobs.get("content") if delta is not None else logprobs.get("tokens")
            if isinstance(seq, list):
                ntok, source = len(seq), "logprobs"
    if not text and not ntok:
        return None, choice.get("finish_reason")
    return _Chunk(t, text, ntok, token_ids, source), choice.get("finish_reason")


def answer_text(ex: Exchange) -> str | None:
    """The text a finished exchange streamed back, or None when it failed: what the next
    turn of a conversation appends to its history (parsed right after the exchange, so
    the next turn can be sent; its timing was recorded at the socket reads already)."""
    if ex.transport_error is not None or ex.status != 200 or "text/event-stream" not in ex.content_type:
        return None
    try:
        events, done = _events(ex.reads)
        texts = []
        finished = done
        for t, payload in events:
            obj = json.loads(payload)
            if not isinstance(obj, dict) or obj.get("error"):
                return None
            chunk, reason = _chunk(t, obj)
            finished = finished or reason is not None
            if chunk is not None:
                texts.append(chunk.text)
    except (StreamError, ValueError):
        return None
    return "".join(texts) if finished and texts else None


def to_record(ex: Exchange, count_tokens: Callable[[str], int] | None = None) -> RequestRecord:
    """Never raises: anything wrong becomes the record's ``error``."""
    base: dict[str, Any] = {
        "prompt_id": ex.prompt_id,
        "send_s": max(0.0, ex.sent - ex.level_start),
        "scheduled_s": None if ex.scheduled is None else max(0.0, ex.scheduled - ex.level_start),
    }
    try:
        return RequestRecord(**base, **_measure(ex, count_tokens))
    except StreamError as exc:
        return RequestRecord(**base, e2e_ms=(ex.ended - ex.sent) * MS, error=str(exc)[:500])


def _measure(ex: Exchange, count_tokens: Callable[[str], int] | None) -> dict[str, Any]:
    if ex.transport_error is not None:
        raise StreamError(ex.transport_error)
    if ex.status != 200:
        snippet = ex.body[:200].decode("utf-8", "replace").strip()
        raise StreamError(f"HTTP {ex.status}: {snippet}")
    if "text/event-stream" not in ex.content_type:
        raise StreamError(f"not an SSE stream (content-type {ex.content_type or 'missing'!r})")
    events, done = _events(ex.reads)
    chunks: list[_Chunk] = []
    usage_tokens: int | None = None
    prompt_tokens: int | None = None
    finish: str | None = None
    spec: RequestSpeculation | None = None
    for t, payload in events:
        try:
            obj = json.loads(payload)
        except ValueError:
            raise StreamError(f"malformed SSE data: {payload[:80].decode('utf-8', 'replace')!r}") from None
        if not isinstance(obj, dict):
            raise StreamError("malformed SSE data: not a JSON object")
        if obj.get("error"):
            err = obj["error"]
            raise StreamError(
                f"server error in stream: {err.get('message', err) if isinstance(err, dict) else err}"
            )
        chunk, reason = _chunk(t, obj)
        if chunk is not None:
            chunks.append(chunk)
        finish = reason or finish
        usage = obj.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("completion_tokens"), int):
            usage_tokens = usage["completion_tokens"]
        if (
            isinstance(usage, dict)
            and isinstance(usage.get("prompt_tokens"), int)
            and usage["prompt_tokens"] >= 0
        ):
            prompt_tokens = usage["prompt_tokens"]
        timings = obj.get("timings")  # llama.cpp server: drafts of this request
        if isinstance(timings, dict) and isinstance(timings.get("draft_n"), int):
            spec = RequestSpeculation(
                draft_tokens=timings["draft_n"], accepted_tokens=int(timings.get("draft_n_accepted") or 0)
            )
    if not done and finish is None:
        raise StreamError("stream ended before completion (no finish_reason and no [DONE])")
    if not chunks:
        raise StreamError("no output tokens in the response")
    text = "".join(c.text for c in chunks)
    per_chunk = [c.ntok for c in chunks]
    chunk_tokens: list[int] | None = None
    chunk_source: str | None = None
    if all(n is not None for n in per_chunk):
        chunk_tokens = [n or 0 for n in per_chunk]
        chunk_source = chunks[0].count_source
    if usage_tokens is not None:
        output_tokens, out_source = usage_tokens, "usage"
    elif chunk_tokens is not None:
        output_tokens, out_source = sum(chunk_tokens), "chunks"
    elif count_tokens is not None:
        output_tokens, out_source = count_tokens(text), "tokenizer"
    else:
        raise StreamError("no token count: no usage in the stream, no per-chunk token ids, no tokenizer")
    if chunk_tokens is not None and sum(chunk_tokens) != output_tokens:
        chunk_tokens, chunk_source = None, None  # usage wins; per-chunk counts are incomplete
    if chunk_tokens is None and output_tokens == len(chunks):
        # Every token-bearing chunk carries at least one token, so equal counts mean one each.
        chunk_tokens, chunk_source = [1] * len(chunks), "one_per_chunk"
    if output_tokens < 1:
        raise StreamError("the server reported zero output tokens for a non-empty response")
    token_ids: list[int] | None = None
    if all(c.token_ids is not None for c in chunks):
        token_ids = [tid for c in chunks for tid in c.token_ids or []]
        if len(token_ids) != output_tokens:
            token_ids = None
    if spec is not None and spec.accepted_tokens > output_tokens:
        spec = None  # a server reporting more accepted drafts than tokens is not believed
    ttft = (chunks[0].t - ex.sent) * MS
    e2e = (chunks[-1].t - ex.sent) * MS
    return {
        "ttft_ms": ttft,
        "e2e_ms": e2e,
        "tpot_ms": tpot_ms(ttft, e2e, output_tokens),
        "chunk_offsets_ms": [(c.t - ex.sent) * MS for c in chunks],
        "chunk_tokens": chunk_tokens,
        "chunk_tokens_source": chunk_source,
        "output_tokens": output_tokens,
        "prompt_tokens": prompt_tokens,
        "output_tokens_source": out_source,
        "output_token_ids": token_ids,
        "output_text": text,
        "finish_reason": finish,
        "speculation": spec,
    }
