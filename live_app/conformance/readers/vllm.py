"""vLLM. /v1/models (serving_models.py), /server_info?config_format=json only with
VLLM_SERVER_DEV_MODE=1 (vllm/entrypoints/serve/instrumentator/server_info.py: its
`vllm_config.speculative_config` is the SpeculativeConfig), /metrics with the spec-decode
counters only when speculation is configured and one `position` label per draft slot on
_num_accepted_tokens_per_pos (vllm/v1/spec_decode/metrics.py)."""

from __future__ import annotations

from contracts_app.document import ContractDocument
from contracts_app.document.adapters.vllm import speculative_config
from live_app.conformance.fetch import Fetcher
from live_app.conformance.readers.metrics import counters_from, positions, read_metrics
from live_app.conformance.readers.models import compare_model, models_seen
from live_app.conformance.readers.reading import METHOD, TOKENS, Reading, field_path


def read(doc: ContractDocument, r: Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    method = doc.speculation.method
    models = f.get(base, "/v1/models")
    r.keep("v1_models", models)
    if models.ok:
        compare_model(r, doc, *models_seen(models))
    want = speculative_config(doc)
    info = f.get(base, "/server_info?config_format=json")
    r.keep("server_info", info)
    config = info.data.get("vllm_config") if info.ok and isinstance(info.data, dict) else None
    if isinstance(config, dict) and "speculative_config" in config:
        got = config.get("speculative_config")
        if not isinstance(got, dict) or not got:
            info.saw("vllm_config.speculative_config", "none")
            r.compare(METHOD, want.get("method", "none"), "none")
        elif not want:
            r.compare(METHOD, "none", info.saw("vllm_config.speculative_config.method", got.get("method")))
        else:
            for key, value in want.items():
                seen = info.saw(f"vllm_config.speculative_config.{key}", got.get(key))
                r.compare(field_path("vllm", key, method), value, seen)
    elif info.ok:
        info.saw("vllm_config.speculative_config", None)
    read_ = read_metrics("vllm", r, f, base, metrics_url)
    if read_ is not None:
        samples, page = read_
        r.counters = counters_from("vllm", samples, page)
        # The counters exist only when speculation is configured: that it speculates, not how.
        r.speculates(method, r.counters is not None, "speculating (/metrics: spec_decode counters)")
        k = positions("vllm", samples, page)
        if k is not None and method != "none" and TOKENS not in r.checked:
            r.compare(TOKENS, doc.speculation.num_speculative_tokens, k)
    for key in want:
        r.not_reported(field_path("vllm", key, method))
    r.not_reported(METHOD)
