"""``POST /v1/completions`` and ``/v1/chat/completions``: streams on a known schedule.

A request that arrives while ``a`` streams are active (itself included) gets its first
step at ``ttft_ms + ttft_per_stream_ms × a`` after arrival, then one step every
``(step_ms + step_per_stream_ms × a) × (1 + load_factor × (in flight now − 1))``. Steps
are due at absolute times (no drift) and the time each one was written is recorded
(``time.perf_counter``: CLOCK_MONOTONIC, the same clock in every process on the machine).

How a step reaches the client is the shape's: vLLM and SGLang send one SSE event per
step carrying all its tokens; llama.cpp and TGI send one event per token, so a step of
``k`` tokens is a burst of ``k`` events (as llama-server and TGI's router stream).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from time import perf_counter
from typing import Any

from aiohttp import web

from tests.support.engine_emulator.state import Engine, token_ids

FAILURE_MODES = frozenset(
    {"http500", "flaky", "garbage", "drop", "nousage", "stall", "notsse", "error-event", "close-after"}
)
PER_TOKEN_EVENTS = frozenset({"llamacpp", "tgi"})


def error(status: int, message: str, param: str | None = None) -> web.Response:
    kind = {400: "BadRequestError", 404: "NotFoundError"}.get(status, "InternalServerError")
    body = {"error": {"message": message, "type": kind, "param": param, "code": status}}
    return web.json_response(body, status=status)


def _sse(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


class Completions:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.settings = engine.settings

    def mode_of(self, model: Any) -> str | None:
        if model == self.settings.served_model_name:
            return "normal"
        return model if model in FAILURE_MODES else None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        recv = perf_counter()
        chat = request.path.endswith("/chat/completions")
        try:
            body = await request.json()
        except ValueError:
            return error(400, "the body is not JSON")
        if not isinstance(body, dict):
            return error(400, "the body is not a JSON object")
        mode = self.mode_of(body.get("model"))
        if mode is None:
            return error(404, f"The model `{body.get('model')}` does not exist.", "model")
        if chat:
            if not isinstance(body.get("messages"), list):
                return error(400, "messages: a list of messages is required", "messages")
            prompt = json.dumps(body["messages"])
        elif isinstance(body.get("prompt"), str):
            prompt = body["prompt"]
        else:
            return error(400, "prompt: a string is required", "prompt")
        max_tokens = body.get("max_tokens", self.settings.output_tokens)
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            return error(400, "max_tokens: a positive integer", "max_tokens")

        engine = self.engine
        engine.arrivals += 1
        if mode == "http500" or (mode == "flaky" and engine.arrivals % 2 == 0):
            return error(500, "internal error")
        if mode == "notsse":
            return web.json_response({"choices": [{"text": "hello", "index": 0, "finish_reason": "stop"}]})
        rank = (engine.arrivals - 1) % self.settings.dp_size
        engine.active += 1
        try:
            return await self._stream(request, body, mode, chat, prompt, max_tokens, recv, rank)
        finally:
            engine.active -= 1

    async def _stream(
        self,
        request: web.Request,
        body: dict[str, Any],
        mode: str,
        chat: bool,
        prompt: str,
        max_tokens: int,
        recv: float,
        rank: int,
    ) -> web.StreamResponse:
        s, engine = self.settings, self.engine
        active = engine.active
        sizes, jitter = engine.plan_stream(max_tokens)
        ttft = (s.ttft_ms + s.ttft_per_stream_ms * active) * jitter / 1000.0
        step = (s.step_ms + s.step_per_stream_ms * active) * jitter / 1000.0
        total = sum(sizes)
        ids = token_ids(prompt, total)
        want_ids = s.shape == "vllm" and bool(body.get("return_token_ids")) and mode != "nousage"
        want_usage = bool((body.get("stream_options") or {}).get("include_usage")) and mode != "nousage"
        finish = "length" if total >= max_tokens else "stop"
        head = {
            "id": f"cmpl-{uuid.uuid4().hex}",
            "object": "chat.completion.chunk" if chat else "text_completion",
            "created": int(time.time()),
            "model": s.served_model_name,
        }

        def event(chunk_ids: list[int], finish_reason: str | None) -> bytes:
            text = "".join(f" w{t}" for t in chunk_ids)
            choice: dict[str, Any] = {"index": 0, "finish_reason": finish_reason}
            if chat:
                choice["delta"] = {"content": text} if chunk_ids else {}
            else:
                choice["text"] = text
            if want_ids:
                choice["token_ids"] = chunk_ids
            return _sse({**head, "choices": [choice]})

        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        writes: list[float] = []
        pos, due, drafted, accepted = 0, recv + ttft, 0, 0
        per_token = s.shape in PER_TOKEN_EVENTS
        for i, k in enumerate(sizes):
            if i:
                due += step * (1 + s.load_factor * max(engine.active - 1, 0))
            delay = due - perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if mode == "stall" and i == 2:
                await asyncio.sleep(3600)
            if mode == "drop" and i == 2:
                assert request.transport is not None
                request.transport.close()
                return resp
            if mode == "garbage" and i == 2:
                await resp.write(b"data: {this is not json\n\n")
                continue
            if mode == "error-event" and i == 2:
                await resp.write(b'data: {"error": {"message": "engine crashed"}}\n\n')
                continue
            chunk_ids = ids[pos : pos + k]
            pos += k
            last = i == len(sizes) - 1
            if per_token:
                # llama.cpp and TGI send each token as it is accepted; the finish comes after.
                await resp.write(b"".join(event([t], None) for t in chunk_ids))
            else:
                await resp.write(event(chunk_ids, finish if last else None))
            writes.append(perf_counter())
            engine.step_written(k, rank)
            if s.speculative:
                drafted, accepted = drafted + s.draft_tokens, accepted + k - 1
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": total}
        usage["total_tokens"] = usage["prompt_tokens"] + total
        await self._finish(resp, event, finish, usage if want_usage else None, total, drafted, accepted)
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        if mode == "close-after" and request.transport is not None:
            request.transport.close()
        engine.stream_done(
            usage["prompt_tokens"],
            {
                "prompt": prompt,
                "mode": mode,
                "recv": recv,
                "writes": writes,
                "chunk_tokens": sizes,
                "planned_ttft_ms": ttft * 1000,
                "planned_step_ms": step * 1000,
            },
        )
        return resp

    async def _finish(
        self,
        resp: web.StreamResponse,
        event: Any,
        finish: str,
        usage: dict[str, int] | None,
        total: int,
        drafted: int,
        accepted: int,
    ) -> None:
        shape = self.settings.shape
        if shape == "llamacpp":
            # The final event carries the finish reason, usage (when asked) and timings;
            # draft_n / draft_n_accepted only when something was drafted
            # (ggml-org/llama.cpp tools/server/server-task.cpp, result_timings::to_json).
            final = json.loads(event([], finish)[len(b"data: ") :])
            timings: dict[str, Any] = {"predicted_n": total}
            if drafted > 0:
                timings.update(draft_n=drafted, draft_n_accepted=accepted)
            final["timings"] = timings
            if usage is not None:
                final["usage"] = usage
            await resp.write(_sse(final))
            return
        if shape == "tgi":
            await resp.write(event([], finish))
        if usage is not None:
            await resp.write(_sse({"choices": [], "usage": usage}))
