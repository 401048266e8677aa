"""A reference OpenAI-compatible streaming server with a known schedule, for the harness.

Run in its own process (``python -m tests.worker.reference_server --port 0 ...``; it
prints ``PORT <n>``) so its event loop never competes with the harness's.

Schedule of a request that arrives while ``a`` streams are active (itself included):
first chunk at ``ttft_ms + ttft_per_stream_ms * a`` after arrival, then one chunk every
``step_ms + step_per_stream_ms * a`` (the slowdown with load a batching engine shows);
chunk ``i`` carries ``pattern[i % len(pattern)]`` tokens, as speculative decoding does.
Chunks are due at absolute times (no drift), and the server records when each one was
actually written (``time.perf_counter``, CLOCK_MONOTONIC: the same clock in every process
on the machine) and serves those records at ``GET /truth``: that is the truth the harness
is compared against.

Like vLLM it streams per-chunk ``token_ids`` when asked (``return_token_ids``), a final
usage chunk (``stream_options.include_usage``), and ``/metrics`` with
``vllm:spec_decode_*`` counters: a chunk of k tokens counts as one draft of
``max(pattern) - 1`` tokens with ``k - 1`` accepted.

The request's ``model`` picks a failure mode: ``ref`` (normal), ``http500``, ``flaky``
(every second request is a 500), ``garbage`` (a malformed SSE line mid-stream), ``drop``
(the connection closes mid-stream), ``nousage`` (no usage, no token ids), ``stall``
(stops sending after two chunks), ``notsse`` (a JSON body instead of a stream),
``error-event`` (an error object mid-stream), ``close-after`` (closes the keep-alive
connection after each complete response, as llama-server does after a stream).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from time import perf_counter
from typing import Any

from aiohttp import web

MODES = {
    "ref",
    "http500",
    "flaky",
    "garbage",
    "drop",
    "nousage",
    "stall",
    "notsse",
    "error-event",
    "close-after",
}


class Reference:
    def __init__(self, args: argparse.Namespace) -> None:
        self.ttft_ms: float = args.ttft_ms
        self.ttft_per_stream_ms: float = args.ttft_per_stream_ms
        self.step_ms: float = args.step_ms
        self.step_per_stream_ms: float = args.step_per_stream_ms
        self.pattern: list[int] = [int(x) for x in args.pattern.split(",")]
        self.chunks: int = args.chunks
        self.active = 0
        self.served = 0
        self.truth: list[dict[str, Any]] = []
        self.counters = {"drafts": 0, "draft_tokens": 0, "accepted": 0}

    @staticmethod
    def token_ids(prompt: str, n: int) -> list[int]:
        # Deterministic per prompt, so "greedy" outputs repeat exactly.
        seed = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:4], "big")
        return [(seed + 7919 * i) % 50_000 + 10 for i in range(n)]

    async def completions(self, request: web.Request) -> web.StreamResponse:
        recv = perf_counter()
        body = await request.json()
        mode = body.get("model", "ref")
        if mode not in MODES:
            return web.json_response({"error": {"message": f"unknown model {mode!r}"}}, status=404)
        self.served += 1
        if mode == "http500" or (mode == "flaky" and self.served % 2 == 0):
            return web.json_response({"error": {"message": "internal error"}}, status=500)
        if mode == "notsse":
            return web.json_response({"choices": [{"text": "hello", "finish_reason": "stop"}]})
        chat = request.path.endswith("/chat/completions")
        prompt = json.dumps(body["messages"]) if chat else body["prompt"]
        self.active += 1
        try:
            return await self._stream(request, body, mode, chat, prompt, recv)
        finally:
            self.active -= 1

    async def _stream(
        self, request: web.Request, body: dict[str, Any], mode: str, chat: bool, prompt: str, recv: float
    ) -> web.StreamResponse:
        active = self.active
        ttft = (self.ttft_ms + self.ttft_per_stream_ms * active) / 1000.0
        step = (self.step_ms + self.step_per_stream_ms * active) / 1000.0
        max_tokens = int(body.get("max_tokens", 10**9))
        sizes: list[int] = []
        for i in range(self.chunks):
            k = min(self.pattern[i % len(self.pattern)], max_tokens - sum(sizes))
            if k <= 0:
                break
            sizes.append(k)
        ids = self.token_ids(prompt, sum(sizes))
        want_ids = bool(body.get("return_token_ids")) and mode != "nousage"
        want_usage = bool((body.get("stream_options") or {}).get("include_usage")) and mode != "nousage"
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        writes: list[float] = []
        pos = 0
        for i, k in enumerate(sizes):
            delay = recv + ttft + i * step - perf_counter()
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
            text = "".join(f" w{t}" for t in chunk_ids)
            finish = ("length" if sum(sizes) >= max_tokens else "stop") if i == len(sizes) - 1 else None
            choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
            if chat:
                choice["delta"] = {"content": text}
            else:
                choice["text"] = text
            if want_ids:
                choice["token_ids"] = chunk_ids
            await resp.write(
                b"data: " + json.dumps({"object": "chunk", "choices": [choice]}).encode() + b"\n\n"
            )
            writes.append(perf_counter())
            self.counters["drafts"] += 1
            self.counters["draft_tokens"] += max(self.pattern) - 1
            self.counters["accepted"] += k - 1
        if want_usage:
            usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": sum(sizes)}
            await resp.write(b"data: " + json.dumps({"choices": [], "usage": usage}).encode() + b"\n\n")
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        if mode == "close-after" and request.transport is not None:
            request.transport.close()
        self.truth.append(
            {
                "prompt": prompt,
                "mode": mode,
                "recv": recv,
                "writes": writes,
                "chunk_tokens": sizes,
                "planned_ttft_ms": ttft * 1000,
                "planned_step_ms": step * 1000,
            }
        )
        return resp

    async def metrics(self, request: web.Request) -> web.Response:
        c = self.counters
        labels = '{engine="0",model_name="ref"}'
        lines = [
            "# TYPE vllm:spec_decode_num_drafts counter",
            f"vllm:spec_decode_num_drafts_total{labels} {float(c['drafts'])}",
            f"vllm:spec_decode_num_draft_tokens_total{labels} {float(c['draft_tokens'])}",
            f"vllm:spec_decode_num_accepted_tokens_total{labels} {float(c['accepted'])}",
        ]
        return web.Response(text="\n".join(lines) + "\n")

    async def get_truth(self, request: web.Request) -> web.Response:
        return web.json_response(self.truth)

    async def reset_truth(self, request: web.Request) -> web.Response:
        self.truth.clear()
        return web.json_response({"ok": True})

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ttft-ms", type=float, default=50.0)
    parser.add_argument("--ttft-per-stream-ms", type=float, default=0.0)
    parser.add_argument("--step-ms", type=float, default=20.0)
    parser.add_argument("--step-per-stream-ms", type=float, default=0.0)
    parser.add_argument("--pattern", default="1,3,2,4", help="tokens per chunk, cycled")
    parser.add_argument("--chunks", type=int, default=16)
    args = parser.parse_args(argv)
    ref = Reference(args)
    app = web.Application()
    app.router.add_post("/v1/completions", ref.completions)
    app.router.add_post("/v1/chat/completions", ref.completions)
    app.router.add_get("/metrics", ref.metrics)
    app.router.add_get("/truth", ref.get_truth)
    app.router.add_post("/truth/reset", ref.reset_truth)
    app.router.add_get("/health", ref.health)

    async def serve() -> None:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", args.port, backlog=2048)
        await site.start()
        server = site._server
        assert server is not None
        port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        print(f"PORT {port}", flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
