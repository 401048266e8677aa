"""A tiny OpenAI-compatible streaming server for the worker tests: `/v1/completions` with
SSE chunks on a known schedule (first token after --ttft-ms, then one chunk every
--step-ms carrying --tokens-per-chunk tokens, with their token ids), usage at the end.
The output is a deterministic function of the prompt, so greedy outputs of two servers
match token for token.

Run: python tests/workers/openai_server.py --port 8123 [--step-ms 20] [--tokens-per-chunk 3]
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


def make_app(ttft_ms: float, step_ms: float, tokens_per_chunk: int, output_tokens: int) -> web.Application:
    async def completions(request: web.Request) -> web.StreamResponse:
        try:
            body: dict[str, Any] = await request.json()
            max_tokens = int(body["max_tokens"])
            prompt = str(body.get("prompt") or json.dumps(body.get("messages")))
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": {"message": "bad request"}}, status=400)
        ids = _tokens(prompt, min(max_tokens, output_tokens))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await asyncio.sleep(ttft_ms / 1000)
        for start in range(0, len(ids), tokens_per_chunk):
            if start:
                await asyncio.sleep(step_ms / 1000)
            chunk = ids[start : start + tokens_per_chunk]
            last = start + tokens_per_chunk >= len(ids)
            choice = {
                "index": 0,
                "text": "".join(f" t{t}" for t in chunk),
                "token_ids": chunk,
                "finish_reason": "length" if last else None,
            }
            await response.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(ids), "total_tokens": 0}
        await response.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        return response

    async def health(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"data": [{"id": "test-model", "object": "model"}]})

    app = web.Application()
    app.router.add_post("/v1/completions", completions)
    app.router.add_get("/health", health)
    app.router.add_get("/v1/models", models)
    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ttft-ms", type=float, default=10)
    parser.add_argument("--step-ms", type=float, default=5)
    parser.add_argument("--tokens-per-chunk", type=int, default=1)
    parser.add_argument("--output-tokens", type=int, default=1000)
    args = parser.parse_args()
    app = make_app(args.ttft_ms, args.step_ms, args.tokens_per_chunk, args.output_tokens)
    web.run_app(app, host="127.0.0.1", port=args.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
