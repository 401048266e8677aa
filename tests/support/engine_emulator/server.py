"""The emulator's web application and its entry point (prints ``PORT <n>`` once listening)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from tests.support.engine_emulator import shapes
from tests.support.engine_emulator.config import (
    HOSTILE,
    ConfigError,
    Settings,
    build_parser,
    settings_from_args,
)
from tests.support.engine_emulator.state import Engine, token_ids
from tests.support.engine_emulator.streaming import Completions, error

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _json(build: Callable[[], Any]) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        return web.json_response(build())

    return handler


def _metrics(build: Callable[[], list[str]]) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        return shapes._text(build())

    return handler


async def _empty_ok(request: web.Request) -> web.StreamResponse:
    return web.Response(status=200)


def _shape_routes(app: web.Application, engine: Engine) -> None:
    s, router = engine.settings, app.router
    if s.shape == "vllm":
        router.add_get("/health", _empty_ok)
        router.add_get("/version", _json(lambda: {"version": s.engine_version}))
        router.add_get("/v1/models", _json(lambda: shapes.vllm_models(engine)))
        router.add_get("/metrics", _metrics(lambda: shapes.vllm_metrics(engine)))
        if s.dev_mode:

            async def server_info(request: web.Request) -> web.StreamResponse:
                fmt = request.query.get("config_format", "text")
                if fmt not in ("text", "json"):
                    return error(400, "config_format: text or json", "config_format")
                return web.json_response(shapes.vllm_server_info(engine, fmt))

            router.add_get("/server_info", server_info)
    elif s.shape == "sglang":
        router.add_get("/health", _empty_ok)
        if not s.legacy_info_only:
            router.add_get("/server_info", _json(lambda: shapes.sglang_server_info(engine)))
        router.add_get("/get_server_info", _json(lambda: shapes.sglang_server_info(engine)))  # deprecated
        model_info = {"model_path": s.served_model_name, "tokenizer_path": s.served_model_name,
                      "is_generation": True}  # fmt: skip
        router.add_get("/get_model_info", _json(lambda: model_info))
        router.add_get("/v1/models", _json(lambda: shapes.sglang_models(engine)))
        if s.enable_metrics:
            router.add_get("/metrics", _metrics(lambda: shapes.sglang_metrics(engine)))
    elif s.shape == "llamacpp":
        router.add_get("/health", _json(lambda: {"status": "ok"}))
        router.add_get("/props", _json(lambda: shapes.llamacpp_props(engine)))
        router.add_get("/slots", _json(lambda: shapes.llamacpp_slots(engine)))
        router.add_get("/v1/models", _json(lambda: shapes.llamacpp_models(engine)))
        router.add_post("/completion", lambda request: _llamacpp_completion(request, engine))

        async def metrics(request: web.Request) -> web.StreamResponse:
            if not s.llamacpp_metrics:  # llama-server answers 501 (ERROR_TYPE_NOT_SUPPORTED)
                message = "This server does not support metrics endpoint. Start it with `--metrics`"
                return web.json_response({"error": {"code": 501, "message": message,
                                                    "type": "not_supported_error"}}, status=501)  # fmt: skip
            return shapes._text(shapes.llamacpp_metrics(engine))

        router.add_get("/metrics", metrics)
    else:  # tgi
        router.add_get("/health", _empty_ok)
        router.add_get("/info", _json(lambda: shapes.tgi_info(engine)))
        router.add_get("/v1/models", _json(lambda: shapes.tgi_models(engine)))
        router.add_get("/metrics", _metrics(lambda: shapes.tgi_metrics(engine)))


async def _llamacpp_completion(request: web.Request, engine: Engine) -> web.StreamResponse:
    """llama-server's native ``POST /completion``, not streamed: the whole answer at once,
    with ``id_slot`` and ``timings`` (``draft_n``/``draft_n_accepted`` only when something
    was drafted), as ``server_task_result_cmpl_final::to_json_non_oaicompat`` writes it
    (ggml-org/llama.cpp tools/server/server-task.cpp)."""
    try:
        body = await request.json()
    except ValueError:
        return web.json_response({"error": {"code": 400, "message": "the body is not JSON"}}, status=400)
    n_predict = body.get("n_predict", 16) if isinstance(body, dict) else None
    if not isinstance(n_predict, int) or not isinstance(body.get("prompt"), str):
        return web.json_response({"error": {"code": 400, "message": "prompt, n_predict"}}, status=400)
    engine.active += 1
    try:
        sizes = engine.plan(max(1, n_predict))
        for k in sizes:
            engine.step_written(k, 0)
    finally:
        engine.active -= 1
    s, total = engine.settings, sum(sizes)
    timings: dict[str, Any] = {"prompt_n": len(body["prompt"].split()), "predicted_n": total}
    if s.speculative and sizes:
        timings.update(draft_n=s.draft_tokens * len(sizes), draft_n_accepted=total - len(sizes))
    # Counted as a request (the slot shows its params after it), not in /truth: no stream.
    engine.counters.requests += 1
    engine.counters.prompt_tokens += timings["prompt_n"]
    text = "".join(f" w{t}" for t in token_ids(body["prompt"], total))
    return web.json_response({"content": text, "id_slot": 0, "stop": True, "tokens_predicted": total,
                              "timings": timings})  # fmt: skip


def _admin_routes(app: web.Application, engine: Engine) -> None:
    async def reset(request: web.Request) -> web.StreamResponse:
        engine.reset()
        return web.json_response({"ok": True})

    async def acceptance(request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except ValueError:
            return error(400, "the body is not JSON")
        if not isinstance(body, dict) or "pattern" not in body:
            return error(400, 'pattern: required, e.g. {"pattern": [3, 1]}', "pattern")
        try:
            pattern = engine.set_pattern(body["pattern"])
        except ConfigError as exc:
            return error(400, str(exc), exc.param)
        return web.json_response({"pattern": pattern, "draft_tokens": engine.settings.draft_tokens})

    async def reset_truth(request: web.Request) -> web.StreamResponse:
        engine.truth.clear()
        return web.json_response({"ok": True})

    router = app.router
    router.add_get("/truth", _json(lambda: engine.truth))
    router.add_post("/truth/reset", reset_truth)
    router.add_post("/admin/reset", reset)
    router.add_post("/admin/acceptance", acceptance)
    router.add_get("/admin/counters", _json(lambda: {**engine.counters.as_dict(), "pattern": engine.pattern}))


HUGE_BYTES = 50 * 1024 * 1024


def _hostile(state: dict[str, str]) -> Any:
    """Middleware for ``--hostile`` (or ``POST /admin/hostile``): every GET but /health
    answers badly while ``state["mode"]`` is set."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        mode = state["mode"]
        if not mode or request.method != "GET" or request.path == "/health":
            return await handler(request)
        if mode == "invalid-json":
            return web.Response(
                text='{"vllm_config": {"speculative_config": ', content_type="application/json"
            )
        if mode == "redirect":
            raise web.HTTPFound("http://169.254.169.254/latest/meta-data/")
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        if mode == "huge":
            line = b"vllm:spec_decode_num_draft_tokens_total 1.0\n" * 1000
            for _ in range(HUGE_BYTES // len(line)):
                await response.write(line)
        else:  # trickle: one byte every half second, for a minute
            for _ in range(120):
                await response.write(b"#")
                await asyncio.sleep(0.5)
        await response.write_eof()
        return response

    return middleware


# vLLM's `--api-key`: its AuthenticationMiddleware answers 401 `{"error": "Unauthorized"}` to
# a request whose `Authorization` isn't `Bearer <key>`, on every route but its
# PUBLIC_ENDPOINTS (health probes, /metrics, the docs) and OPTIONS; /server_info is guarded.
_VLLM_PUBLIC = ("/health", "/ping", "/load", "/version", "/metrics")
_EMULATOR_OWN = ("/truth", "/admin")  # the tests' controls, not vLLM's


def _api_key(key: str) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        public = any(
            request.path == p or request.path.startswith(p + "/") for p in _VLLM_PUBLIC + _EMULATOR_OWN
        )
        if request.method == "OPTIONS" or public:
            return await handler(request)
        if request.headers.get("Authorization") != f"Bearer {key}":
            return web.json_response({"error": "Unauthorized"}, status=401)
        return await handler(request)

    return middleware


def make_app(settings: Settings) -> web.Application:
    engine = Engine(settings)
    completions = Completions(engine)
    hostile = {"mode": settings.hostile}
    middlewares = [_hostile(hostile)]
    if settings.api_key:
        middlewares.append(_api_key(settings.api_key))
    app = web.Application(middlewares=middlewares)
    app.router.add_post("/v1/completions", completions.handle)
    app.router.add_post("/v1/chat/completions", completions.handle)
    _shape_routes(app, engine)
    _admin_routes(app, engine)
    app.router.add_post("/admin/hostile", _hostile_switch(hostile))
    return app


def _hostile_switch(state: dict[str, str]) -> Any:
    """``POST /admin/hostile`` ``{"mode": "trickle"}``: answer badly from now on (``""``:
    well again), e.g. an endpoint that stalls after the benchmark, on its re-probe."""

    async def switch(request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except ValueError:
            return error(400, "the body is not JSON")
        mode = body.get("mode") if isinstance(body, dict) else None
        if mode not in HOSTILE:
            return error(400, f"mode: one of {', '.join(m for m in HOSTILE if m)} or empty", "mode")
        state["mode"] = mode
        return web.json_response({"mode": mode})

    return switch


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = settings_from_args(args)
    except ConfigError as exc:
        parser.error(str(exc))  # exits 2 with the flag named
    app = make_app(settings)

    async def serve() -> None:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, args.host, args.port, backlog=2048)
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
