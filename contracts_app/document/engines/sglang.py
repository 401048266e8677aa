"""SGLang by release. Read from the released wheels (PyPI `sglang` 0.4.10, 0.5.1-0.5.4,
0.5.6-0.5.10, 0.5.23): `sglang/srt/server_args.py` (0.5.23: `sglang/srt/arg_groups/
fields/spec.py`) for the flags, `sglang/srt/speculative/spec_info.py` for the algorithms,
`sglang/srt/entrypoints/http_server.py` for the endpoints and the metrics collector for
the Prometheus names."""

from __future__ import annotations

from .release import EngineKnowledge, Feature

ARGS = "sgl-project/sglang python/sglang/srt/server_args.py (read in the released wheels)"
SPEC23 = "sgl-project/sglang python/sglang/srt/arg_groups/fields/spec.py (0.5.23 wheel)"
ALGOS = "sgl-project/sglang python/sglang/srt/speculative/spec_info.py (SpeculativeAlgorithm)"
HTTP = "sgl-project/sglang python/sglang/srt/entrypoints/http_server.py"
METRICS = (
    "sgl-project/sglang python/sglang/srt/metrics/collector.py (0.5.10+: observability/metrics_collector.py)"
)


def _a(name: str, method: str | None, **kw: object) -> Feature:
    role = kw.pop("role", "contract" if method else "refused")
    return Feature(name, "method", kw.pop("source", ALGOS), method=method, role=role, **kw)  # type: ignore[arg-type]


def _f(name: str, role: str = "tuning", **kw: object) -> Feature:
    return Feature(name, "flag", kw.pop("source", ARGS), role=role, **kw)  # type: ignore[arg-type]


_NEW = "0.5.23"  # first release read with these; the exact release that added them is not established

FEATURES: tuple[Feature, ...] = (
    # --speculative-algorithm values; NEXTN is EAGLE's implementation for MTP layers.
    _a("EAGLE", "eagle"),
    _a("EAGLE3", "eagle3"),
    _a("NEXTN", "mtp", note="an alias of EAGLE for a model's own MTP layers"),
    _a("STANDALONE", "draft_model", since="0.5.2"),
    _a("NGRAM", "ngram", since="0.5.3", note="CUDA only"),
    _a("DFLASH", "dflash", since=_NEW, source=f"{ALGOS}; {SPEC23}"),
    _a("DSPARK", "dspark", since=_NEW, source=f"{ALGOS}; {SPEC23}"),
    _a("UNO", None, since=_NEW),
    _a("FROZEN_KV_MTP", None, since=_NEW),
    # Flags that carry contract fields.
    _f("--model-path", "contract", aliases=("--model",), field="target.model"),
    _f("--revision", "contract", field="target.revision"),
    _f("--tokenizer-path", "contract", field="compatibility.tokenizer.name"),
    _f("--max-running-requests", "contract", field="compatibility.batching.max_batch_size"),
    _f("--speculative-algorithm", "contract", field="speculation.method"),
    _f("--speculative-draft-model-path", "contract", field="assets.name"),
    _f(
        "--speculative-draft-model-path",
        "contract",
        since="0.5.2",
        aliases=("--speculative-draft-model",),
        field="assets.name",
        concept="draft_alias",
    ),
    _f(
        "--speculative-draft-model-path",
        "contract",
        method="mtp",
        field="assets.mtp_assistant",
        note="NEXTN with separate MTP weights",
    ),
    _f("--speculative-draft-model-revision", "contract", since="0.5.2", field="assets.revision"),
    _f(
        "--speculative-num-steps",
        "contract",
        field="speculation.num_speculative_tokens",
        note="draft depth of the EAGLE-style algorithms",
    ),
    _f("--speculative-eagle-topk", "contract", field="speculation.params.eagle_topk"),
    _f(
        "--speculative-num-draft-tokens",
        "contract",
        field="speculation.params.num_draft_tokens",
        note="for NGRAM it is the token count",
    ),
    _f(
        "--speculative-ngram-min-match-window-size",
        "contract",
        since="0.5.3",
        until="0.5.10",
        method="ngram",
        field="speculation.params.prompt_lookup_min",
        source="sgl-project/sglang#21225 (removed)",
        note="NGRAM now matches every suffix up to --speculative-ngram-max-trie-depth",
    ),
    _f(
        "--speculative-ngram-max-match-window-size",
        "contract",
        since="0.5.3",
        until="0.5.10",
        method="ngram",
        field="speculation.params.prompt_lookup_max",
        source="sgl-project/sglang#21225 (removed)",
        note="NGRAM now matches every suffix up to --speculative-ngram-max-trie-depth",
    ),
    _f(
        "--enable-metrics",
        "tuning",
        takes_value=False,
        concept="metrics",
        note="adds sglang:spec_accept_length / _rate to /metrics",
    ),
    # Flags that change what is proposed or accepted: refused unless at the default.
    _f("--speculative-accept-threshold-single", "refused", default="1.0"),
    _f("--speculative-accept-threshold-acc", "refused", default="1.0"),
    _f("--speculative-token-map", "refused", note="FR-Spec: a truncated draft vocabulary"),
    _f("--speculative-ngram-min-bfs-breadth", "refused", since="0.5.3", default="1"),
    _f("--speculative-ngram-max-bfs-breadth", "refused", since="0.5.3", default="10"),
    _f("--speculative-ngram-match-type", "refused", since="0.5.3", default="BFS"),
    _f(
        "--speculative-ngram-branch-length",
        "refused",
        since="0.5.3",
        until="0.5.10",
        default="18",
        replaced_by="--speculative-ngram-max-trie-depth",
        source="sgl-project/sglang#21181 (renamed)",
    ),
    _f(
        "--speculative-ngram-max-trie-depth",
        "refused",
        since="0.5.10",
        default="18",
        source=f"sgl-project/sglang#21181; {ARGS}",
    ),
    _f("--speculative-ngram-capacity", "refused", since="0.5.3", default="10000000"),
    _f("--speculative-ngram-external-corpus-path", "refused", since=_NEW, source=SPEC23),
    _f("--speculative-ngram-external-sam-budget", "refused", since=_NEW, default="0", source=SPEC23),
    _f("--speculative-draft-model-quantization", "refused", since="0.5.7"),
    # Verifiers: speculation.verifier rejection_sampling / block (engines/verifiers.py).
    _f(
        "--speculative-use-rejection-sampling",
        "contract",
        since=_NEW,
        takes_value=False,
        field="speculation.verifier",
        source=SPEC23,
    ),
    _f(
        "--speculative-use-block-verification",
        "contract",
        since=_NEW,
        takes_value=False,
        field="speculation.verifier",
        source=SPEC23,
    ),
    _f("--speculative-draft-window-size", "refused", since=_NEW, source=SPEC23),
    _f("--speculative-draft-sink-size", "refused", since=_NEW, source=SPEC23),
    _f("--speculative-adaptive", "refused", since=_NEW, takes_value=False, source=SPEC23),
    _f("--speculative-adaptive-config", "refused", since=_NEW, source=SPEC23),
    _f("--enable-multi-layer-eagle", "refused", since=_NEW, takes_value=False, source=SPEC23),
    _f("--speculative-dflash-block-size", "refused", since=_NEW, source=SPEC23),
    _f(
        "--speculative-dspark-block-size",
        "contract",
        since=_NEW,
        method="dspark",
        field="speculation.num_speculative_tokens",
        source=SPEC23,
        note="gamma, the proposed draft tokens; the verify window is gamma + 1",
    ),
    _f(
        "--speculative-dspark-align-verify-tokens-to-graph-tier",
        "refused",
        since=_NEW,
        takes_value=False,
        source=SPEC23,
    ),
    _f("--speculative-dspark-sps-table-path", "refused", since=_NEW, source=SPEC23),
    _f("--speculative-dspark-confidence-sts-path", "refused", since=_NEW, source=SPEC23),
    _f("--speculative-domino-candidate-pool-size", "refused", since=_NEW, default="2048", source=SPEC23),
    _f("--uno-lora-path", "refused", since=_NEW, source=SPEC23),
    # Flags that change speed, memory or placement only.
    _f("--speculative-attention-mode", since="0.5.2"),
    _f("--speculative-draft-load-format", since="0.5.4"),
    _f("--speculative-moe-runner-backend", since="0.5.6"),
    _f("--speculative-draft-attention-backend", since="0.5.7"),
    _f("--speculative-ngram-external-corpus-max-tokens", since=_NEW, source=SPEC23),
    _f("--speculative-moe-a2a-backend", since=_NEW, source=SPEC23),
    _f("--speculative-dsa-topk-backend", since=_NEW, source=SPEC23),
    _f("--speculative-draft-kv-cache-dtype", since=_NEW, source=SPEC23),
    _f("--speculative-boundary-reduction", since=_NEW, default="rs+rsv", source=SPEC23),
    _f("--speculative-enable-w4a4-mxfp4-megamoe", since=_NEW, takes_value=False, source=SPEC23),
    _f("--spec-trace-dir", since=_NEW, source=SPEC23),
    Feature(
        "SGLANG_ENABLE_SPEC_V2",
        "env",
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md",
        role="tuning",
        note="the overlap scheduler",
    ),
    Feature(
        "SGLANG_NGRAM_FORCE_GREEDY_VERIFY",
        "env",
        "sgl-project/sglang docs/advanced_features/speculative_decoding.md",
        role="refused",
        default="False",
        note="forces greedy verification",
    ),
    # Metrics (with --enable-metrics) and endpoints.
    Feature("sglang:spec_accept_length", "metric", METRICS),
    Feature("sglang:spec_accept_rate", "metric", METRICS, since="0.5.4"),
    Feature(
        "/get_server_info",
        "endpoint",
        HTTP,
        note="deprecated for /server_info from 0.5.6; "
        "internal_states[] holds one avg_spec_accept_length per data-parallel rank",
    ),
    Feature("/server_info", "endpoint", HTTP, since="0.5.6"),
    Feature("/metrics", "endpoint", HTTP, note="with --enable-metrics"),
)

KNOWLEDGE = EngineKnowledge(
    engine="sglang",
    name="SGLang",
    scheme="pep440",
    releases=tuple(
        (v, f"sglang {v} wheel: sglang/srt/server_args.py, sglang/srt/speculative/spec_info.py")
        for v in ("0.4.10", "0.5.2", "0.5.3", "0.5.4", "0.5.6", "0.5.7", "0.5.10", "0.5.23")
    ),
    features=FEATURES,
    notes=(
        "EAGLE without a draft model path runs the model's own MTP layers (read as mtp).",
        "NGRAM speculation runs on CUDA GPUs only.",
    ),
    remarks=(("0.5.23", "the first release read after 0.5.10: what it adds may be older"),),
    out_of_scope=(
        (
            "UNO / FROZEN_KV_MTP",
            "drafters with method-specific settings "
            "(LoRA drafts, frozen KV) that specpact/v1 has no fields for yet",
        ),
    ),
)
