"""TensorRT-LLM: `trtllm-serve MODEL … --extra_llm_api_options speculative.yaml` (from 1.3.0
`--config`, the same option), the YAML holding `speculative_config` with the keys of the
release's `*DecodingConfig` (NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py); render
writes only the keys that release has (engines/trtllm.py)."""

from __future__ import annotations

from typing import Any

import yaml

from ..engines import asset_role
from ..engines.trtllm import DECODING_TYPE, SPECULATIVE_CONFIG
from ..rules_release import view_of
from ..schema import ContractDocument
from .base import ImportResult, RenderedConfig, common_notes, rendered

ENGINE = "trtllm"
CONFIG_FILE = "speculative.yaml"
ITER_STATS = "enable_iter_perf_stats"
PERF_METRICS = "return_perf_metrics"


def speculative_config(doc: ContractDocument) -> dict[str, Any]:
    spec, view = doc.speculation, view_of(doc)
    if spec.method == "none":
        return {}
    p = spec.params
    if p is not None and p.parallel_drafting:
        decoding_type = "PARD"
    else:
        feature = view.method(spec.method)
        decoding_type = feature.name if feature else spec.method
    config: dict[str, Any] = {DECODING_TYPE: decoding_type, "max_draft_len": spec.num_speculative_tokens}
    role = asset_role(spec.method)
    asset = doc.asset(role) if role else None
    if asset is not None:
        config["speculative_model"] = asset.name
    if p is not None:
        if p.prompt_lookup_max is not None:
            config["max_matching_ngram_size"] = p.prompt_lookup_max
        if p.token_schedule:
            # {batch size: draft length}, each key the largest batch its length applies to;
            # above the largest key the engine drafts nothing (DecodingBaseConfig.draft_len_schedule).
            config["draft_len_schedule"] = {
                s.up_to_batch_size: s.num_speculative_tokens for s in p.token_schedule
            }
    off = doc.compatibility.batching.speculation_off_above_batch_size
    if off is not None and view.concept("speculation_off_above") is not None:
        config["max_concurrency"] = off
    cutoff = spec.acceptance_cutoff
    if cutoff is not None:
        config["acceptance_rate_window_size"] = cutoff.window
        config["acceptance_rate_threshold"] = cutoff.min_rate
    return config


def render(doc: ContractDocument) -> RenderedConfig:
    target, tok, view = doc.target, doc.compatibility.tokenizer, view_of(doc)
    argv = ["trtllm-serve", target.model]
    if target.revision:
        argv += ["--revision", target.revision]
    if tok.name != target.model:
        argv += ["--tokenizer", tok.name]
    argv += ["--max_batch_size", str(doc.compatibility.batching.max_batch_size)]
    spec = speculative_config(doc)
    config: dict[str, Any] = {SPECULATIVE_CONFIG: spec} if spec else {}
    # The Prometheus page (/prometheus/metrics, only with return_perf_metrics) and the
    # spec_decode counters on it (they grow only with enable_iter_perf_stats), which the
    # conformance probe, the acceptance watch and the worker read.
    for key in (PERF_METRICS, ITER_STATS):
        if spec and view.has(key):
            config[key] = True
    files: dict[str, str] = {}
    if config:
        flag = view.spelling("config_new") or view.spelling("config") or "--extra_llm_api_options"
        argv += [flag, CONFIG_FILE]
        files[CONFIG_FILE] = yaml.safe_dump(config, sort_keys=False)
    notes = common_notes(doc, "TensorRT-LLM")
    if tok.revision and tok.revision != target.revision:
        notes.append(
            f"trtllm-serve has no tokenizer revision option: point --tokenizer at a copy of "
            f"{tok.name} at {tok.revision}"
        )
    role = asset_role(doc.speculation.method)
    asset = doc.asset(role) if role else None
    if asset is not None and asset.revision:
        notes.append(
            f"speculative_model takes no revision: download {asset.name} at {asset.revision} and "
            "name that copy's path in the YAML"
        )
    schedule = doc.speculation.params.token_schedule if doc.speculation.params else None
    if schedule:
        notes.append(
            f"TensorRT-LLM drafts nothing above batch size {schedule[-1].up_to_batch_size} "
            "(the schedule's largest key)"
        )
    if config:
        notes.append(f"write the YAML below to {CONFIG_FILE} beside the command")
    notes.append(
        f"trtllm-serve has no server-side concurrency cap: keep concurrency at or below "
        f"{doc.compatibility.max_concurrency} in front of it"
    )
    result = rendered(ENGINE, argv, config, notes)
    result.files = files
    return result


def import_argv(
    argv: list[str] | str, engine_version: str | None = None, files: dict[str, str] | None = None
) -> ImportResult:
    from .trtllm_import import import_argv as run

    return run(argv, engine_version, files or {})
