"""vLLM by release. Read from the released wheels (PyPI `vllm` 0.8.3 … 0.33.0):
`vllm/config/speculative.py` (`SpeculativeConfig`: its fields are the keys
`--speculative-config` takes, and unknown keys are refused), `vllm/engine/arg_utils.py`
(CLI flags) and `vllm/utils/argparse_utils.py` (`FlexibleArgumentParser` turns `_` into
`-` in option names, so `--speculative_config` is the same flag)."""

from __future__ import annotations

from .release import EngineKnowledge, Feature

SPEC = "vllm-project/vllm vllm/config/speculative.py (SpeculativeConfig, read in the released wheels)"
ARGS = "vllm-project/vllm vllm/engine/arg_utils.py"
V0 = "the V0 engine, removed in 0.10.0 (vllm-project/vllm#35060 says so)"


def _m(name: str, method: str | None, **kw: object) -> Feature:
    role = kw.pop("role", "contract" if method else "refused")
    return Feature(name, "method", kw.pop("source", SPEC), method=method, role=role, **kw)  # type: ignore[arg-type]


def _k(name: str, role: str = "tuning", **kw: object) -> Feature:
    return Feature(name, "key", kw.pop("source", SPEC), role=role, **kw)  # type: ignore[arg-type]


FEATURES: tuple[Feature, ...] = (
    # Methods (`SpeculativeConfig.method`), contract method → vLLM's spelling.
    _m("ngram", "ngram"),
    _m("eagle", "eagle"),
    _m("eagle3", "eagle3", since="0.8.5"),
    _m("medusa", "medusa", until="0.33.0", note="0.33.0 dropped medusa from SpeculativeMethod"),
    _m("mlp_speculator", "mlp_speculator", until="0.33.0", note="0.33.0 dropped mlp_speculator"),
    _m("draft_model", "draft_model", until="0.10.0", note=f"runs on {V0}"),
    _m(
        "draft_model",
        "draft_model",
        since="0.15.0",
        source="vllm-project/vllm#24322; 0.10.0-0.14.x refuse it in vllm/engine/arg_utils.py "
        "('Draft model speculative decoding is not supported yet')",
    ),
    _m("mtp", "mtp", since="0.11.0", note="earlier releases name MTP per model family (deepseek_mtp, ...)"),
    _m("suffix", "suffix", since="0.12.0"),
    # Block-diffusion drafters (issue 23): DFlashModelTypes / DSparkModelTypes in
    # SpeculativeMethod; dflash loads `model`, dspark may run weights shipped in the target's
    # checkpoint; both set parallel_drafting themselves.
    _m("dflash", "dflash", since="0.20.0"),
    _m("dspark", "dspark", since="0.28.0"),
    # Methods the format does not hold (see the README's out-of-scope list).
    _m("extract_hidden_states", None, since="0.17.0"),
    _m("ngram_gpu", None, since="0.18.0"),
    _m("custom_class", None, since="0.22.0"),
    # Keys of --speculative-config that carry contract fields.
    _k("method", "contract", field="speculation.method"),
    _k(
        "model",
        "contract",
        field="assets.name",
        note="the draft, EAGLE head, Medusa heads, MLP speculator or MTP assistant checkpoint",
    ),
    _k(
        "model",
        "contract",
        since="0.11.0",
        method="mtp",
        field="assets.mtp_assistant",
        source=f"{SPEC}; vllm-project/vllm docs/features/speculative_decoding/mtp.md",
        note="an MTP assistant checkpoint; Gemma 4 assistants need 0.21.0 (gemma4_mtp)",
    ),
    _k("num_speculative_tokens", "contract", field="speculation.num_speculative_tokens"),
    _k("revision", "contract", field="assets.revision"),
    _k("prompt_lookup_min", "contract", method="ngram", field="speculation.params.prompt_lookup_min"),
    _k("prompt_lookup_max", "contract", method="ngram", field="speculation.params.prompt_lookup_max"),
    _k(
        "disable_by_batch_size",
        "contract",
        until="0.10.0",
        field="compatibility.batching.speculation_off_above_batch_size",
        concept="speculation_off_above",
        note=f"switches speculation off for new requests above a queue size on {V0}",
    ),
    _k(
        "disable_by_batch_size",
        "refused",
        since="0.10.0",
        until="0.17.0",
        concept="speculation_off_above_unused",
        replaced_by="num_speculative_tokens_per_batch_size (0.24.0)",
        source="vllm-project/vllm#35060 (removed: unused since the V0 engine went in 0.10.0)",
        note="accepted but does nothing",
    ),
    _k(
        "num_speculative_tokens_per_batch_size",
        "contract",
        since="0.24.0",
        field="speculation.params.token_schedule",
        source=f"vllm-project/vllm#32374; {SPEC}",
        note="inclusive [start, end, tokens] ranges",
    ),
    _k(
        "use_heterogeneous_vocab",
        "contract",
        since="0.25.0",
        method="draft_model",
        field="speculation.params.heterogeneous_vocab",
    ),
    _k(
        "parallel_drafting",
        "contract",
        since="0.16.0",
        field="speculation.params.parallel_drafting",
        note="EAGLE and draft-model methods only; the draft must be trained for it (PARD)",
    ),
    # Keys that change speed or placement, not what is proposed or accepted.
    _k("draft_tensor_parallel_size"),
    _k("tensor_parallel_size", since="0.15.0", note="only there to warn: pass draft_tensor_parallel_size"),
    _k("enforce_eager", since="0.11.0"),
    _k("disable_padded_drafter_batch", since="0.11.0"),
    _k("use_local_argmax_reduction", since="0.17.0"),
    _k("draft_load_config", since="0.17.0"),
    _k("moe_backend", since="0.19.0"),
    _k("attention_backend", since="0.21.0"),
    _k("kv_cache_dtype", since="0.26.0"),
    _k("disable_eagle_block_drop", since="0.30.0"),
    _k("disable_lookahead_block_hashes", since="0.33.0"),
    _k("disable_mqa_scorer", until="0.10.0"),
    _k("disable_logprobs", until="0.12.0"),
    _k("max_model_len", since="0.10.0", note="no effect in V1 (vllm-project/vllm#52258)"),
    # Keys that change speculation and that specpact/v1 cannot hold.
    _k("max_model_len", "refused", until="0.10.0", note=f"skips speculation for longer sequences on {V0}"),
    _k("quantization", "refused", note="the draft's weight quantization changes its proposals"),
    _k("draft_lm_head_quantization", "refused", since="0.33.0"),
    _k("code_revision", "refused", note="specpact/v1 pins the checkpoint revision, not its code revision"),
    _k("acceptance_method", "refused", until="0.10.0", default="rejection_sampler"),
    _k("posterior_threshold", "refused", until="0.10.0"),
    _k("posterior_alpha", "refused", until="0.10.0"),
    _k("speculative_token_tree", "refused", since="0.9.0", until="0.21.0"),
    # Read again for issue 23: "standard" replaced "strict" in 0.21.0 (0.21.0 wheel). The values
    # a contract can hold are speculation.verifier (engines/verifiers.py); the import reads them.
    _k("rejection_sample_method", "refused", since="0.18.0", until="0.21.0", default="strict"),
    _k("rejection_sample_method", "refused", since="0.21.0", default="standard"),
    _k("synthetic_acceptance_rate", "refused", since="0.19.0", until="0.20.0"),
    _k("synthetic_acceptance_rates", "refused", since="0.20.0"),
    _k(
        "synthetic_acceptance_length",
        "contract",
        since="0.20.0",
        field="speculation.params.synthetic_acceptance_length",
    ),
    _k("draft_sample_method", "refused", since="0.21.0", default="greedy"),
    _k("suffix_decoding_max_tree_depth", "refused", since="0.12.0", default="24"),
    _k("suffix_decoding_max_cached_requests", "refused", since="0.12.0", default="10000"),
    _k("suffix_decoding_max_spec_factor", "refused", since="0.12.0", default="1.0"),
    _k("suffix_decoding_min_token_prob", "refused", since="0.12.0", default="0.1"),
    _k("index_share_for_mtp_iteration", "refused", since="0.29.0"),
    _k("dspark_draft_topk", "refused", since="0.28.0"),
    _k("enable_adaptive_verification", "refused", since="0.28.0", default="false"),
    _k("xpress_topc", "refused", since="0.33.0"),
    _k("fly_window_size", "refused", since="0.33.0"),
    _k("fly_entropy_threshold", "refused", since="0.33.0", default="0.3"),
    _k("fly_entropy_top_k", "refused", since="0.33.0", default="3"),
    # CLI flags.
    Feature(
        "--speculative-config",
        "flag",
        ARGS,
        aliases=("--speculative_config",),
        concept="config",
        note="JSON; also --speculative-config.KEY VALUE",
    ),
    Feature("-sc", "flag", f"{ARGS} (vllm-project/vllm#38380)", since="0.19.0", concept="config_short"),
    Feature("--max-num-seqs", "flag", ARGS, field="compatibility.batching.max_batch_size"),
    Feature("--revision", "flag", ARGS, field="target.revision"),
    Feature("--tokenizer", "flag", ARGS, field="compatibility.tokenizer.name"),
    Feature("--tokenizer-revision", "flag", ARGS, field="compatibility.tokenizer.revision"),
    Feature("--model", "flag", ARGS, field="target.model"),
    Feature(
        "--per-request-spec-decode-metrics",
        "flag",
        f"{ARGS} (vllm-project/vllm#48915)",
        since="0.29.0",
        role="tuning",
    ),
    # The flags --speculative-config replaced (vllm-project/vllm#15466, first absent in 0.8.3).
    *(
        Feature(
            old,
            "flag",
            "vllm-project/vllm#15466",
            until="0.8.3",
            concept=key,
            replaced_by=f"--speculative-config '{{\"{key}\": ...}}'",
        )
        for old, key in (
            ("--speculative-model", "model"),
            ("--num-speculative-tokens", "num_speculative_tokens"),
            ("--speculative-draft-tensor-parallel-size", "draft_tensor_parallel_size"),
            ("--speculative-max-model-len", "max_model_len"),
            ("--speculative-disable-by-batch-size", "disable_by_batch_size"),
            ("--ngram-prompt-lookup-max", "prompt_lookup_max"),
            ("--ngram-prompt-lookup-min", "prompt_lookup_min"),
            ("--speculative-model-quantization", "quantization"),
            ("--speculative-revision", "revision"),
            ("--spec-decoding-acceptance-method", "acceptance_method"),
            ("--typical-acceptance-sampler-posterior-threshold", "posterior_threshold"),
            ("--typical-acceptance-sampler-posterior-alpha", "posterior_alpha"),
            ("--speculative-disable-mqa-scorer", "disable_mqa_scorer"),
            ("--disable-logprobs-during-spec-decoding", "disable_logprobs"),
        )
    ),
    Feature("VLLM_USE_V1", "env", "vllm-project/vllm vllm/envs.py (0.10.0; gone from 0.33.0)", role="tuning"),
    Feature("VLLM_USE_V2_MODEL_RUNNER", "env", "vllm-project/vllm vllm/envs.py", role="tuning"),
    Feature(
        "VLLM_SERVER_DEV_MODE",
        "env",
        "vllm-project/vllm vllm/envs.py",
        role="tuning",
        note="exposes /server_info",
    ),
    # What the worker and a conformance probe read (counters exist only with speculation on,
    # one `position` label per draft slot).
    Feature(
        "vllm:spec_decode_num_draft_tokens_total", "metric", "vllm-project/vllm vllm/v1/metrics/loggers.py"
    ),
    Feature(
        "vllm:spec_decode_num_accepted_tokens_total", "metric", "vllm-project/vllm vllm/v1/metrics/loggers.py"
    ),
    Feature(
        "vllm:spec_decode_num_drafts_total",
        "metric",
        "vllm-project/vllm vllm/v1/metrics/loggers.py",
        since="0.9.2",
    ),
    Feature(
        "vllm:spec_decode_num_accepted_tokens_per_pos_total",
        "metric",
        "vllm-project/vllm vllm/v1/metrics/loggers.py",
        since="0.9.0",
    ),
    Feature("/metrics", "endpoint", "vllm-project/vllm vllm/entrypoints/openai/api_server.py"),
    Feature(
        "/v1/models",
        "endpoint",
        "vllm-project/vllm vllm/entrypoints/openai/api_server.py",
        note="no speculation fields",
    ),
    Feature("/health", "endpoint", "vllm-project/vllm vllm/entrypoints/openai/api_server.py"),
    Feature(
        "/server_info",
        "endpoint",
        "vllm-project/vllm vllm/entrypoints/openai/api_server.py",
        since="0.11.0",
        note="only with VLLM_SERVER_DEV_MODE=1",
    ),
)

KNOWLEDGE = EngineKnowledge(
    engine="vllm",
    name="vLLM",
    scheme="pep440",
    releases=tuple(
        (v, f"vllm {v} wheel: vllm/config/speculative.py, vllm/engine/arg_utils.py")
        for v in (
            "0.8.3",
            "0.8.5",
            "0.9.0",
            "0.9.2",
            "0.10.0",
            "0.11.0",
            "0.12.0",
            "0.15.0",
            "0.16.0",
            "0.17.0",
            "0.18.0",
            "0.19.0",
            "0.20.0",
            "0.21.0",
            "0.22.0",
            "0.24.0",
            "0.25.0",
            "0.26.0",
            "0.28.0",
            "0.29.0",
            "0.30.0",
            "0.33.0",
        )
    ),
    features=FEATURES,
    notes=(
        "Releases before 0.8.3 took --speculative-model/--num-speculative-tokens flags "
        "(removed in vllm-project/vllm#15466); SpecPact renders --speculative-config only.",
        "When `method` is missing vLLM infers it: model 'ngram' or '[ngram]' → ngram, a dotted "
        "import path → custom_class, a name with 'eagle-' → eagle, 'eagle3' → eagle3, 'dflash' "
        "→ dflash, 'dspark' → dspark; otherwise the draft's config decides (medusa, "
        "mlp_speculator, an MTP model type) or draft_model (SpeculativeConfig.__post_init__).",
    ),
    remarks=(
        (
            "0.10.0",
            "the V0 engine is gone: disable_by_batch_size is accepted but unused; draft models "
            "return in 0.15.0",
        ),
        ("0.17.0", "disable_by_batch_size is refused (vllm-project/vllm#35060)"),
    ),
    out_of_scope=(
        (
            "ngram_gpu",
            "n-gram lookup on the GPU: the contract's ngram says what is proposed, "
            "not where it runs; a separate method name would only duplicate ngram",
        ),
        (
            "dspark_draft_topk / enable_adaptive_verification",
            "DSpark's draft top-k and its adaptive verification budget: settings the format has no "
            "field for yet (refused on import unless at vLLM's default)",
        ),
        ("custom_class", "a user-supplied proposer class: nothing in a contract can say what it proposes"),
        ("extract_hidden_states", "not speculation: it exports hidden states for training drafters"),
    ),
)
