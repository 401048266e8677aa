"""TensorRT-LLM by release: `trtllm-serve MODEL --extra_llm_api_options FILE.yaml` (also
`--config FILE.yaml`), the YAML's `speculative_config` holding one `*DecodingConfig` of
`tensorrt_llm/llmapi/llm_args.py`, chosen by `decoding_type`.

Where it was read (NVIDIA/TensorRT-LLM; the PyPI `tensorrt-llm` 1.2.1 is a stub that
downloads the wheel from pypi.nvidia.com, which this workplace cannot reach, so the wheel
itself was not read):
- 1.2.1: docs/source/release-notes.md ("TensorRT-LLM Release 1.2": "Enabled dynamic draft
  length support"; release 1.0: MTP, Eagle-3, NGram, draft/target, user-provided drafting,
  "Support turning on/off spec decoding dynamically") and docs/source/features/
  speculative-decoding.md (YAML with `decoding_type` MTP / Eagle3 / NGram / DraftTarget,
  `Eagle` accepted as an alias of Eagle3).
- 1.3.0: the repository's main branch, tensorrt_llm/llmapi/llm_args.py at commit
  0004396720054fd8e205cbf616f21f0b57c6b412 (DecodingBaseConfig and its subclasses; it warns
  that eagle_choices "will be removed in release 1.4", so it predates 1.4),
  tensorrt_llm/commands/serve.py at 00209af149e7774406881a37283dce303571eb11 (`--config`
  and `--extra_llm_api_options` are one option), tensorrt_llm/metrics/collector.py
  (trtllm_speculative_config_info, trtllm_spec_decode_*). What it adds is dated 1.3.0, the
  first release after 1.2; the 1.3.0 and 1.4.0 tags themselves were not read.
"""

from __future__ import annotations

from .release import EngineKnowledge, Feature

ARGS = "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (main, 0004396720054fd8e205cbf616f21f0b57c6b412)"
SERVE = "NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py (main, 00209af149e7774406881a37283dce303571eb11)"
DOCS = "NVIDIA/TensorRT-LLM docs/source/features/speculative-decoding.md"
NOTES_12 = (
    "NVIDIA/TensorRT-LLM docs/source/release-notes.md (Release 1.2: 'Enabled dynamic draft length support')"
)
NOTES_10 = "NVIDIA/TensorRT-LLM docs/source/release-notes.md (Release 1.0)"
METRICS = "NVIDIA/TensorRT-LLM tensorrt_llm/metrics/collector.py (main)"
SERVER = (
    "NVIDIA/TensorRT-LLM tensorrt_llm/serve/openai_server.py (OpenAIServer.register_routes, mount_metrics)"
)
NEW = "1.3.0"  # what only the main-branch snapshot shows (see the module docstring)

# The YAML key that holds the speculation settings, and the key naming the method.
SPECULATIVE_CONFIG = "speculative_config"
DECODING_TYPE = "decoding_type"


def _m(name: str, method: str | None, **kw: object) -> Feature:
    role = kw.pop("role", "contract" if method else "refused")
    return Feature(name, "method", kw.pop("source", ARGS), method=method, role=role, **kw)  # type: ignore[arg-type]


def _k(name: str, role: str = "refused", **kw: object) -> Feature:
    return Feature(name, "key", kw.pop("source", ARGS), role=role, **kw)  # type: ignore[arg-type]


def _f(name: str, role: str = "tuning", **kw: object) -> Feature:
    return Feature(name, "flag", kw.pop("source", SERVE), role=role, **kw)  # type: ignore[arg-type]


FEATURES: tuple[Feature, ...] = (
    # Methods (`decoding_type`), contract method → TensorRT-LLM's spelling.
    _m("MTP", "mtp", source=f"{NOTES_10}; {ARGS} (MTPDecodingConfig)"),
    _m(
        "Eagle3",
        "eagle3",
        aliases=("Eagle",),
        source=f"{NOTES_10}; {ARGS} (Eagle3DecodingConfig)",
        note="'Eagle' is an alias of Eagle3: EAGLE v1/v2 checkpoints do not run (speculative-decoding.md)",
    ),
    _m("NGram", "ngram", source=f"{NOTES_10}; {ARGS} (NGramDecodingConfig)"),
    _m(
        "DraftTarget",
        "draft_model",
        aliases=("Draft_Target",),
        source=f"{DOCS}; {ARGS} (DraftTargetDecodingConfig, decoding_type Draft_Target)",
    ),
    # PARD: a draft model that proposes every token in one pass (vLLM's parallel_drafting).
    _m(
        "PARD",
        "draft_model",
        since=NEW,
        field="speculation.params.parallel_drafting",
        source=f"{ARGS} (PARDDecodingConfig); {DOCS}",
        note="a PARD-trained draft; speculation.params.parallel_drafting: true",
    ),
    # SA: a suffix automaton over the tokens generated so far (model-free, like suffix decoding).
    _m("SA", "suffix", since=NEW, source=f"{ARGS} (SADecodingConfig); {DOCS}"),
    # Methods the format does not hold.
    _m("AUTO", None, source=f"{ARGS} (AutoDecodingConfig)"),
    _m("User_Provided", None, aliases=("UserProvided",)),
    _m("SaveState", None),
    # Block-diffusion drafters (DFlashDecodingConfig, DSparkDecodingConfig): a drafter checkpoint
    # (speculative_model) drafts max_draft_len tokens in one pass from the hidden states of the
    # target's layers; verification stays the target's ("acceptance stays standard target
    # verification, preserving greedy parity", DSparkDecodingConfig). Pytorch backend only. The
    # published API reference of 1.3.0rc27 lists DFlashDecodingConfig (nvidia.github.io/TensorRT-LLM/
    # 1.3.0rc27/llm-api/reference/DFlashDecodingConfig.html), so 1.3.0 is not too early for it.
    _m("DFlash", "dflash", since=NEW, source=f"{ARGS} (DFlashDecodingConfig, decoding_type DFlash)"),
    _m(
        "DSpark",
        "dspark",
        since=NEW,
        source=f"{ARGS} (DSparkDecodingConfig, decoding_type DSpark)",
        note="a standalone drafter checkpoint, or the target's own mtp.* weights named as speculative_model",
    ),
    # speculative_config keys that carry contract fields.
    _k(DECODING_TYPE, "contract", field="speculation.method"),
    _k("max_draft_len", "contract", field="speculation.num_speculative_tokens"),
    _k(
        "num_nextn_predict_layers",
        "contract",
        method="mtp",
        field="speculation.num_speculative_tokens",
        note="deprecated: read as max_draft_len (MTPDecodingConfig)",
    ),
    _k(
        "speculative_model",
        "contract",
        aliases=("speculative_model_dir",),
        field="assets.name",
        note="the draft, EAGLE-3 head or PARD draft; for MTP a separate MTP checkpoint",
    ),
    _k(
        "speculative_model",
        "contract",
        since=NEW,
        method="mtp",
        aliases=("speculative_model_dir",),
        field="assets.mtp_assistant",
        note="replacement MTP heads or an external MTP draft (DecodingBaseConfig.speculative_model)",
    ),
    _k(
        "max_matching_ngram_size",
        "contract",
        method="ngram",
        field="speculation.params.prompt_lookup_max",
        note="NGram: the longest prompt suffix matched (default 2)",
    ),
    _k(
        "draft_len_schedule",
        "contract",
        field="speculation.params.token_schedule",
        source=f"{NOTES_12}; {ARGS}",
        note="{batch size: draft length}; above the largest key speculation is off",
    ),
    _k(
        "max_concurrency",
        "contract",
        field="compatibility.batching.speculation_off_above_batch_size",
        concept="speculation_off_above",
        source=f"{NOTES_10} ('Support turning on/off spec decoding dynamically'); {ARGS}",
        note="speculation off at batch sizes above it; exclusive with draft_len_schedule",
    ),
    _k(
        "acceptance_rate_window_size",
        "contract",
        since=NEW,
        field="speculation.acceptance_cutoff.window",
        note="rolling window (speculating iterations) of the engine's own acceptance watch",
    ),
    _k(
        "acceptance_rate_threshold",
        "contract",
        since=NEW,
        field="speculation.acceptance_cutoff.min_rate",
        note="below it (accepted/drafted over the window) the engine switches speculation off for good",
    ),
    # Keys that change speed or placement, not what is proposed or accepted.
    _k("load_format", "tuning"),
    _k("eagle3_one_model", "tuning", default="true", note="False is ignored (falls back to True)"),
    _k("mtp_eagle_one_model", "tuning", default="true", note="False is ignored (falls back to True)"),
    _k("num_eagle_layers", "tuning", note="deprecated TensorRT-only field"),
    _k("allow_advanced_sampling", "tuning", note="deprecated no-op"),
    _k("attention_backend", "tuning", since=NEW, note="DFlash/DSpark cross-attention backend"),
    # Keys that change speculation and that specpact/v1 cannot hold yet.
    _k("max_total_draft_tokens", note="draft tree budget; equal to max_draft_len on a linear chain"),
    _k("use_rejection_sampling", default="false", since=NEW),
    _k("advanced_sampling_mode", default="full", since=NEW),
    _k("enable_penalty", default="false", since=NEW),
    _k("eagle_choices", note="static draft tree"),
    _k("greedy_sampling", default="true"),
    _k("posterior_threshold"),
    _k("use_dynamic_tree", default="false"),
    _k("dynamic_tree_max_topK"),
    _k("max_non_leaves_per_layer"),
    _k("eagle3_layers_to_capture"),
    _k("eagle3_model_arch", default="llama3", since=NEW),
    _k("sa_config", since=NEW, note="Suffix Automaton combined with Eagle3, MTP or PARD"),
    _k("use_sa_spec", default="false", since=NEW, source=DOCS),
    _k("sa_spec_threshold", default="4", since=NEW, source=DOCS),
    _k("is_keep_all", default="true"),
    _k("is_use_oldest", default="true"),
    _k("is_public_pool", default="true"),
    _k("enable_global_pool", default="false", since=NEW),
    _k("global_pool_size", since=NEW),
    _k(
        "use_relaxed_acceptance_for_thinking",
        default="false",
        note="relaxed (lossy) acceptance while thinking",
    ),
    _k("relaxed_topk", default="1"),
    _k("relaxed_delta", default="0.0"),
    _k("use_mtp_vanilla", default="false"),
    _k("begin_thinking_phase_token", default="128798"),
    _k("end_thinking_phase_token", default="128799"),
    _k("mask_token_id", since=NEW, note="PARD/DFlash mask token; read from the draft's config when unset"),
    _k("target_layer_ids", since=NEW, note="DFlash/DSpark: read from the drafter's config when unset"),
    # DSparkDecodingConfig: read from the drafter's config (dspark_*) when unset.
    _k("block_size", since=NEW, note="DSpark draft positions per block; should equal max_draft_len"),
    _k("markov_rank", since=NEW, note="DSpark Markov head rank; 0 disables the head"),
    _k("markov_head_type", since=NEW, note="DSpark sequential head: vanilla, gated or rnn"),
    # Top-level LLM args of the YAML (beside speculative_config).
    Feature(
        "return_perf_metrics",
        "key",
        f"{SERVER}: /prometheus/metrics is mounted only 'if self.llm.args.return_perf_metrics'",
        role="tuning",
        note="without it trtllm-serve serves no Prometheus page; SpecPact's render sets it",
    ),
    Feature(
        "enable_iter_perf_stats",
        "key",
        f"{METRICS} (log_iteration_stats: 'Needs enable_iter_perf_stats: true in LLM args')",
        since=NEW,
        role="tuning",
        note="without it the trtllm_spec_decode_* counters never grow; SpecPact's render sets it",
    ),
    # trtllm-serve options.
    _f(
        "--extra_llm_api_options",
        "contract",
        concept="config",
        source=f"{SERVE}; {DOCS}",
        note="the YAML file holding speculative_config",
    ),
    _f(
        "--config",
        "contract",
        since=NEW,
        concept="config_new",
        source=f"{SERVE} (one option with --extra_llm_api_options); docs/source/_includes/note_sections.rst",
        note="the preferred spelling; --extra_llm_api_options stays an equivalent alias",
    ),
    _f("--tokenizer", "contract", field="compatibility.tokenizer.name"),
    _f("--revision", "contract", field="target.revision"),
    _f("--max_batch_size", "contract", field="compatibility.batching.max_batch_size"),
    _f("--backend", default="pytorch", note="speculation configs run on the pytorch backend"),
    _f("--host"),
    _f("--port"),
    _f("--log_level"),
    _f("--max_beam_width"),
    _f("--max_num_tokens"),
    _f("--max_seq_len"),
    _f("--tensor_parallel_size", aliases=("--tp_size",)),
    _f("--pipeline_parallel_size", aliases=("--pp_size",)),
    _f("--context_parallel_size", aliases=("--cp_size",)),
    _f("--moe_expert_parallel_size", aliases=("--ep_size",)),
    _f("--moe_cluster_parallel_size", aliases=("--cluster_size",)),
    _f("--gpus_per_node"),
    _f("--free_gpu_memory_fraction", aliases=("--kv_cache_free_gpu_memory_fraction",)),
    _f("--num_postprocess_workers"),
    _f("--trust_remote_code", takes_value=False),
    _f("--reasoning_parser"),
    _f("--tool_parser"),
    _f("--chat_template"),
    _f("--custom_tokenizer"),
    _f("--enable_chunked_prefill", takes_value=False),
    _f("--fail_fast_on_attention_window_too_large", takes_value=False),
    _f("--otlp_traces_endpoint"),
    _f("--media_io_kwargs"),
    _f("--custom_module_dirs"),
    _f("--metadata_server_config_file"),
    _f("--server_role"),
    _f("--disagg_cluster_uri"),
    # What a conformance probe and the acceptance watch read.
    Feature(
        "trtllm_speculative_config_info",
        "metric",
        METRICS,
        since=NEW,
        note="labels spec_enabled, spec_method, spec_num_tokens, spec_draft_model; value 1",
    ),
    Feature("trtllm_spec_decode_num_draft_tokens_total", "metric", METRICS, since=NEW),
    Feature("trtllm_spec_decode_num_accepted_tokens_total", "metric", METRICS, since=NEW),
    Feature("trtllm_spec_decode_acceptance_length", "metric", METRICS, since=NEW),
    Feature("trtllm_spec_decode_draft_overhead", "metric", METRICS, since=NEW),
    Feature("/health", "endpoint", SERVER),
    Feature("/version", "endpoint", SERVER),
    Feature("/v1/models", "endpoint", SERVER),
    Feature("/metrics", "endpoint", SERVER, note="JSON iteration stats, not Prometheus"),
    Feature(
        "/prometheus/metrics",
        "endpoint",
        f"{SERVER}; {METRICS}",
        note="mounted only with return_perf_metrics: true",
    ),
)

KNOWLEDGE = EngineKnowledge(
    engine="trtllm",
    name="TensorRT-LLM",
    scheme="pep440",
    releases=(
        (
            "1.2.1",
            "NVIDIA/TensorRT-LLM docs/source/release-notes.md (1.0, 1.1, 1.2), speculative-decoding.md",
        ),
        (NEW, f"{ARGS}; {SERVE}; {METRICS}"),
    ),
    features=FEATURES,
    notes=(
        "trtllm-serve reads speculation from the YAML file named by --extra_llm_api_options "
        "(--config is the same option): its speculative_config mapping, decoding_type first.",
        "Speculation runs on the pytorch backend (the default); PARD, SA, NGram and AUTO run only there.",
        "When the rolling acceptance rate over acceptance_rate_window_size iterations drops below "
        "acceptance_rate_threshold the engine switches speculation off for good (DecodingBaseConfig).",
    ),
    remarks=(
        (
            NEW,
            "read from the main branch (llm_args.py at 0004396, before 1.4): what it adds is dated "
            "1.3.0, the first release after 1.2, and may be older",
        ),
    ),
    out_of_scope=(
        ("AUTO", "the engine picks a draft-free method by its own heuristic: a contract names one method"),
        ("User_Provided", "a Python Drafter object: nothing in a contract can say what it proposes"),
        ("SaveState", "not speculation: it saves hidden states for training drafters"),
    ),
)
