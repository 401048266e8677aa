"""TensorRT-LLM's conformance reader: what `trtllm-serve` says about its speculation.

NVIDIA/TensorRT-LLM tensorrt_llm/metrics/collector.py (`MetricsCollector`, main): the
Prometheus registry is served at /prometheus/metrics (tensorrt_llm/serve/openai_server.py
mounts it only with `return_perf_metrics: true`, which the render sets; its /metrics is JSON
iteration stats); `log_config_info` sets, once at
startup, the info gauge `trtllm_speculative_config_info` (value 1) whose labels are the
speculative config (`spec_enabled`, `spec_method`, `spec_num_tokens`, `spec_draft_model`,
beside the collector's own `model_name` and `engine_type`); `log_iteration_stats` adds each
iteration's `specDecodingStats` to the counters `trtllm_spec_decode_num_draft_tokens_total`
and `trtllm_spec_decode_num_accepted_tokens_total` (only with `enable_iter_perf_stats:
true` in the LLM args, which the render sets). /v1/models names the served model.

Plugged into READERS (live_app/conformance/readers/__init__.py); it uses the readers' own
reading, comparison and metrics page (readers/metrics.py, the Prometheus parser of
worker/harness/acceptance/prometheus.py).
"""

from __future__ import annotations

from typing import Any

from contracts_app.document import ContractDocument
from contracts_app.document.adapters.trtllm import speculative_config
from contracts_app.document.engines import KNOWLEDGE, asset_role
from live_app.conformance.fetch import Fetched, Fetcher
from live_app.conformance.readers.metrics import read_metrics, total
from live_app.conformance.readers.models import compare_model, models_seen, same_model
from live_app.conformance.readers.reading import METHOD, TOKENS, Counters, Reading
from worker.harness.acceptance.prometheus import Metrics

ENGINE = "trtllm"
METRICS_PATH = "/prometheus/metrics"
INFO = "trtllm_speculative_config_info"
DRAFTED = "trtllm_spec_decode_num_draft_tokens_total"
ACCEPTED = "trtllm_spec_decode_num_accepted_tokens_total"
GENERATED = "trtllm_generation_tokens_total"
_TRUE = {"true", "1", "yes"}


def method_of(spec_method: str) -> str | None:
    """The contract method a `spec_method` label names (decoding types and their aliases,
    compared without case); None when the table does not know it."""
    wanted = spec_method.strip().lower()
    for feat in KNOWLEDGE[ENGINE].features:
        if feat.kind == "method" and wanted in (s.lower() for s in feat.spellings):
            return feat.method or feat.name
    return None


def info_labels(samples: Metrics) -> dict[str, str] | None:
    """The labels of the speculative-config info gauge (its one series), None without it."""
    series = samples.series(INFO)
    if not series:
        return None
    labels, _ = max(series.items(), key=lambda item: item[1])
    return dict(labels)


def counters_of(samples: Metrics, page: Fetched) -> Counters | None:
    drafted, accepted = total(samples, DRAFTED, page), total(samples, ACCEPTED, page)
    if drafted is None or accepted is None:
        return None
    generated = total(samples, GENERATED, page)
    return Counters(f"trtllm {METRICS_PATH}", drafted, accepted, None, generated_tokens=generated)


def read(doc: ContractDocument, r: Reading, f: Fetcher, base: str, metrics_url: str) -> None:
    method = doc.speculation.method
    models = f.get(base, "/v1/models")
    r.keep("v1_models", models)
    if models.ok:
        compare_model(r, doc, *models_seen(models))
    page = read_metrics(ENGINE, r, f, base, metrics_url, path=METRICS_PATH)
    if page is not None:
        samples, fetched = page
        _compare_info(doc, r, samples, fetched, same_model)
        r.counters = counters_of(samples, fetched)
    if method != "none":
        r.not_reported(TOKENS)
    r.not_reported(METHOD)


def _compare_info(doc: ContractDocument, r: Reading, samples: Metrics, page: Fetched, same: Any) -> None:
    method = doc.speculation.method
    labels = info_labels(samples)
    enabled = page.saw(f"{INFO}{{spec_enabled}}", labels.get("spec_enabled") if labels else None)
    if labels is None or str(enabled).strip().lower() not in _TRUE:
        # No info gauge (or spec_enabled false): the collector emits it only with a speculative config.
        r.compare(METHOD, method, "none")
        return
    if method == "none":
        r.compare(
            METHOD, "none", page.saw(f"{INFO}{{spec_method}}", labels.get("spec_method")) or "speculating"
        )
        return
    raw = page.saw(f"{INFO}{{spec_method}}", labels.get("spec_method"))
    if raw is not None:
        want = speculative_config(doc).get("decoding_type", method)
        got = method_of(str(raw))
        r.compare(METHOD, method, method if got == method and _same_type(want, str(raw)) else raw)
    tokens = page.saw(f"{INFO}{{spec_num_tokens}}", labels.get("spec_num_tokens"))
    if tokens is not None:
        r.compare(TOKENS, doc.speculation.num_speculative_tokens, _number(tokens))
    role = asset_role(method)
    asset = doc.asset(role) if role else None
    draft = page.saw(f"{INFO}{{spec_draft_model}}", labels.get("spec_draft_model"))
    if asset is not None and draft:
        r.compare(
            f"assets[role={role}].name", asset.name, asset.name if same(asset.name, str(draft)) else draft
        )


def _same_type(want: str, got: str) -> bool:
    """PARD and DraftTarget are both the contract's draft_model: the decoding type tells them apart."""
    if want.lower() in ("pard",) or got.lower() in ("pard",):
        return want.lower() == got.lower()
    return True


def _number(text: Any) -> Any:
    try:
        return int(str(text))
    except ValueError:
        return text
