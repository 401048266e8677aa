"""A small OpenAI-compatible streaming server that behaves like a loaded inference engine,
for the dashboard's realistic benchmarks: the time between chunks grows with the number
of requests in flight (a batch costs more per step), and with `--speculate K` every chunk
carries several tokens and `/metrics` exposes vLLM's `vllm:spec_decode_*` counters, as a
vLLM server with speculation does. Outputs are a deterministic function of the prompt, so
greedy outputs of the two arms match token for token.

With a candidate that delivers more tokens per chunk but slows down faster under load,
the speedup falls with concurrency and the gate finds a crossover, as on real hardware.

Run: python tests/dashboard/engine_server.py --port 8123 [--step-ms 4] [--load-factor 0.02]
     [--tokens-per-chunk 1] [--speculate 4]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
from typing import Any

from aiohttp import web


def _tokens(prompt: str, n: int) -> list[int]:
    seed = hashlib.sha256(prompt.encode()).digest()
    return [seed[i % len(seed)] + 1000 * (i // len(seed)) for i in range(n)]


def make_app(
    *, ttft_ms: float, step_ms: float, load_factor: float, tokens_per_chunk: int, speculate: int
) -> web.Application:
    state = {"in_flight": 0, "drafts": 0, "draft_tokens": 0, "accepted": 0}

    def step_s() -> float:
        return step_ms * (1 + load_factor * max(state["in_flight"] - 1, 0)) / 1000

    async def completions(request: web.Request) -> web.StreamResponse:
        try:
            body: dict[str, Any] = await request.json()
            max_tokens = int(body["max_tokens"])
            prompt = str(body.get("prompt") or json.dumps(body.get("messages")))
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": {"message": "bad request"}}, status=400)
        ids = _tokens(prompt, max_tokens)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        state["in_flight"] += 1
        try:
            await asyncio.sleep(ttft_ms / 1000)
            for start in range(0, len(ids), tokens_per_chunk):
                if start:
                    await asyncio.sleep(step_s())
                chunk = ids[start : start + tokens_per_chunk]
                if speculate:
                    # One verification step: K drafted tokens, all but the bonus token accepted.
                    state["drafts"] += 1
                    state["draft_tokens"] += speculate
                    state["accepted"] += len(chunk) - 1
                last = start + tokens_per_chunk >= len(ids)
                choice = {
                    "index": 0,
                    "text": "".join(f" t{t}" for t in chunk),
                    "token_ids": chunk,
                    "finish_reason": "length" if last else None,
                }
                await response.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
        finally:
            state["in_flight"] -= 1
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(ids), "total_tokens": 0}
        await response.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        return response

    async def metrics(request: web.Request) -> web.Response:
        lines = ["# TYPE vllm:num_requests_running gauge", f"vllm:num_requests_running {state['in_flight']}"]
        if speculate:
            lines += [
                f'vllm:spec_decode_num_drafts_total{{model_name="test-model"}} {state["drafts"]}',
                f'vllm:spec_decode_num_draft_tokens_total{{model_name="test-model"}} {state["draft_tokens"]}',
                f'vllm:spec_decode_num_accepted_tokens_total{{model_name="test-model"}} {state["accepted"]}',
            ]
        return web.Response(text="\n".join(lines) + "\n")

    async def health(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"data": [{"id": "test-model", "object": "model"}]})

    app = web.Application()
    app.router.add_post("/v1/completions", completions)
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/health", health)
    app.router.add_get("/v1/models", models)
    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ttft-ms", type=float, default=8)
    parser.add_argument("--step-ms", type=float, default=4)
    parser.add_argument("--load-factor", type=float, default=0.0)
    parser.add_argument("--tokens-per-chunk", type=int, default=1)
    parser.add_argument("--speculate", type=int, default=0)
    args = parser.parse_args()
    app = make_app(
        ttft_ms=args.ttft_ms,
        step_ms=args.step_ms,
        load_factor=args.load_factor,
        tokens_per_chunk=args.tokens_per_chunk,
        speculate=args.speculate,
    )
    web.run_app(app, host="127.0.0.1", port=args.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
