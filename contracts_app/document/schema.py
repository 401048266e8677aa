"""The contract document (`apiVersion: specpact/v1`) as a pydantic model tree.

Field names are the format's public names (DESIGN §8): change none of them. Every model
forbids unknown fields (a typo must not pass silently) and is strict about types (a
quoted "4" is not a number). Cross-field and engine rules live in `rules.py`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from .engines import AssetRole, Engine, Method
from .engines.verifiers import Verifier

API_VERSION = "specpact/v1"
SCHEMA_ID = "https://specpact.dev/schema/contract/v1.json"
KNOWN_LANES: tuple[str, ...] = ("chat", "summarization", "extraction", "document_review", "agent")
LANE_PATTERN = r"^[a-z][a-z0-9_-]{0,62}$"
ROUTE_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"
ROUTE_HELP = "a route slug is 1-64 lowercase letters, digits and inner hyphens"
DIGEST_PATTERN = r"^sha256:[0-9a-f]{64}$"
PARAM_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"
ENV_PATTERN = r"^[A-Z][A-Z0-9_]{0,127}$"

# Numeric bounds: what an engine, the harness and the control plane's columns can hold.
# A measurement within them always makes a run specification the worker accepts
# (worker/spec.py: at most 32 load levels, 100,000 requests a level, 1,000,000 tokens).
MAX_LEVELS_PER_KIND = 16
MAX_REQUESTS_PER_LEVEL = 100_000
MAX_TOKENS = 1_000_000
MAX_COUNT = 1_000_000  # batch sizes, concurrencies, layers, tree widths
MAX_RATIO = 1000.0
MAX_HISTORY_VERSIONS = 20  # measurement.history.versions: earlier approved versions compared
MAX_LIST = 64  # assets, lanes, schedule steps, gate rules

LaneName = Annotated[
    str,
    StringConstraints(pattern=LANE_PATTERN),
    Field(description=f"A workload lane: one of {', '.join(KNOWN_LANES)}, or a custom slug."),
]
NonEmpty = Annotated[str, StringConstraints(min_length=1, max_length=500)]
Digest = Annotated[str, StringConstraints(pattern=DIGEST_PATTERN)]
ParamName = Annotated[str, StringConstraints(pattern=PARAM_PATTERN)]
ParamValue = bool | int | float | Annotated[str, StringConstraints(min_length=1, max_length=2000)]
EnvName = Annotated[str, StringConstraints(pattern=ENV_PATTERN)]
EnvValue = Annotated[str, StringConstraints(max_length=2000)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class TokenizerRef(_Model):
    name: NonEmpty = Field(description="Tokenizer repository or path (often the model's own).")
    revision: NonEmpty | None = Field(default=None, description="Commit, tag or branch of the tokenizer.")
    digest: Digest | None = Field(default=None, description="sha256 of the tokenizer files, if pinned.")


class Target(_Model):
    model: NonEmpty = Field(description="The target model: repository id or path.")
    revision: NonEmpty | None = Field(default=None, description="Commit or tag of the target model.")
    digest: Digest | None = Field(default=None, description="sha256 of the target weights, if pinned.")
    engine: Engine = Field(description="The inference engine that serves the route.")
    engine_version: NonEmpty | None = Field(default=None, description='Engine release, e.g. "0.11.0".')


class TokenStep(_Model):
    up_to_batch_size: int = Field(
        ge=1, le=MAX_COUNT, description="Applies to batches up to this size (inclusive)."
    )
    num_speculative_tokens: int = Field(ge=0, le=128, description="Tokens proposed at these batch sizes.")


class SpeculationParams(_Model):
    prompt_lookup_min: int | None = Field(
        default=None,
        ge=1,
        le=MAX_COUNT,
        description="n-gram: shortest prompt n-gram matched (vLLM prompt_lookup_min).",
    )
    prompt_lookup_max: int | None = Field(
        default=None,
        ge=1,
        le=MAX_COUNT,
        description="n-gram: longest prompt n-gram matched (vLLM prompt_lookup_max, Transformers "
        "max_matching_ngram_size, SGLang max match window before 0.5.10, llama.cpp "
        "--spec-ngram-<variant>-size-n / --spec-ngram-mod-n-match).",
    )
    ngram_variant: Literal["simple", "mod", "cache", "map-k", "map-k4v"] | None = Field(
        default=None, description="llama.cpp only: which n-gram drafter (--spec-type ngram-<variant>)."
    )
    fallback_types: (
        list[Literal["ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache"]] | None
    ) = Field(
        default=None,
        min_length=1,
        max_length=4,
        description="llama.cpp only (b9246 and later): n-gram types tried, in order, after the method's "
        "own when it drafts nothing (`--spec-type draft-mtp,ngram-mod`); each at llama-server's "
        "defaults. They need no checkpoint, so the contract's assets stay the method's.",
    )
    heterogeneous_vocab: bool | None = Field(
        default=None,
        description="draft_model: the draft may use a different tokenizer; only where the engine has "
        "such a mode (Transformers universal assisted decoding, vLLM use_heterogeneous_vocab).",
    )
    early_exit_layer: int | None = Field(
        default=None,
        ge=1,
        le=MAX_COUNT,
        description="early_exit: the layer whose output drafts (Transformers assistant_early_exit).",
    )
    token_schedule: list[TokenStep] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_LIST,
        description="vLLM and TensorRT-LLM: speculative tokens by batch size, smallest batches first "
        "(vLLM num_speculative_tokens_per_batch_size, TensorRT-LLM draft_len_schedule); fewer "
        "tokens as the batch grows.",
    )
    min_speculative_tokens: int | None = Field(
        default=None,
        ge=0,
        description="llama.cpp only: the fewest tokens a draft must have to be verified "
        "(--spec-draft-n-min, --spec-ngram-mod-n-min; --draft-min before b8942).",
    )
    parallel_drafting: bool | None = Field(
        default=None,
        description="vLLM (0.16.0 and later) and TensorRT-LLM (decoding_type PARD): all speculative "
        "tokens drafted in one pass; the draft or EAGLE head must be trained for it, e.g. PARD.",
    )
    eagle_topk: int | None = Field(
        default=None,
        ge=1,
        le=MAX_COUNT,
        description="SGLang EAGLE tree branching factor (--speculative-eagle-topk).",
    )
    num_draft_tokens: int | None = Field(
        default=None,
        ge=1,
        le=MAX_COUNT,
        description="SGLang EAGLE tree verification width (--speculative-num-draft-tokens).",
    )
    synthetic_acceptance_length: float | None = Field(
        default=None,
        ge=1,
        le=129,
        description="vLLM verifier synthetic only: the mean acceptance length it simulates, in "
        "[1, num_speculative_tokens + 1] (synthetic_acceptance_length, 0.20.0 and later).",
    )
    engine: dict[ParamName, ParamValue] | None = Field(
        default=None,
        max_length=MAX_LIST,
        description="The engine's own speculation settings beyond the fields above, by name "
        "(engines/params.py: e.g. llama.cpp draft_p_min, vLLM draft_tensor_parallel_size, SGLang "
        "speculative_accept_threshold_single); each is typed and checked against the release named.",
    )


class AcceptanceCutoff(_Model):
    """Issue 23 point 5: an engine that switches speculation off by itself when its own
    acceptance watch fails (TensorRT-LLM acceptance_rate_window_size and
    acceptance_rate_threshold, DecodingBaseConfig in tensorrt_llm/llmapi/llm_args.py) is told
    so by the contract, and the live acceptance watch reads that switch-off as such."""

    window: int = Field(
        ge=1, le=MAX_COUNT, description="Speculating iterations the engine's rolling acceptance rate spans."
    )
    min_rate: float = Field(
        ge=0,
        le=1,
        description="Below this rolling acceptance rate (accepted / drafted tokens) the engine "
        "switches speculation off for good, until it is restarted.",
    )


class Speculation(_Model):
    method: Method = Field(description="The speculation method; `none` is plain decoding.")
    num_speculative_tokens: int | None = Field(
        default=None, ge=1, le=128, description="Tokens proposed per step; required unless method is none."
    )
    params: SpeculationParams | None = Field(default=None, description="Method parameters.")
    # None (not "standard") by default: a default fills the canonical JSON and would change
    # the digest of every stored document (see canonical.IMPLIED).
    verifier: Verifier | None = Field(
        default=None,
        description="How drafted tokens are verified: standard (the engine's own, lossless; the default), "
        "block, rejection_sampling (lossless), synthetic or fly (lossy: need verification: lossy).",
    )
    env: dict[EnvName, EnvValue] | None = Field(
        default=None,
        max_length=MAX_LIST,
        description="Environment variables the engine reads that change speculation (engines/params.py: "
        "e.g. SGLANG_ENABLE_SPEC_V2, VLLM_USE_V2_MODEL_RUNNER), as text; rendered as `env`.",
    )
    acceptance_cutoff: AcceptanceCutoff | None = Field(
        default=None,
        description="The engine's own switch-off: speculation stops for good when its rolling "
        "acceptance rate falls below min_rate (TensorRT-LLM 1.3.0 and later).",
    )


class Asset(_Model):
    role: AssetRole = Field(description="What the route uses this checkpoint for.")
    name: NonEmpty = Field(description="Repository id or path of the checkpoint.")
    revision: NonEmpty | None = Field(default=None, description="Commit or tag of the checkpoint.")
    digest: Digest | None = Field(default=None, description="sha256 of the checkpoint, if pinned.")
    size_bytes: int | None = Field(
        default=None, ge=0, le=2**63 - 1, description="Size on disk, for memory planning."
    )
    tokenizer: TokenizerRef | None = Field(
        default=None, description="The checkpoint's own tokenizer (required for a draft, to check the match)."
    )


class Decoding(_Model):
    modes: list[Literal["greedy", "sampling"]] = Field(
        min_length=1, description="Decoding modes the route is approved for."
    )
    temperature_max: float | None = Field(
        default=None, ge=0, le=10, description="Highest sampling temperature approved."
    )


class Batching(_Model):
    max_batch_size: int = Field(ge=1, le=MAX_COUNT, description="Largest batch the engine may run.")
    speculation_off_above_batch_size: int | None = Field(
        default=None,
        ge=1,
        le=MAX_COUNT,
        description="Speculation is switched off when the batch is larger than this.",
    )


class Compatibility(_Model):
    tokenizer: TokenizerRef = Field(description="The target's tokenizer; drafts must match it.")
    decoding: Decoding
    batching: Batching
    max_concurrency: int = Field(
        ge=1, le=MAX_COUNT, description="Most concurrent requests the route is approved for."
    )


class Lanes(_Model):
    allowed: list[LaneName] = Field(max_length=MAX_LIST, description="Lanes the method is approved for.")
    excluded: list[LaneName] = Field(
        default_factory=list, max_length=MAX_LIST, description="Lanes explicitly excluded."
    )


class Workload(_Model):
    dataset: NonEmpty = Field(
        description="Prompt set: builtin:<lane>, workload:<name>@sha256:<hex> (a registered workload), "
        "or a path on the worker."
    )
    concurrency: list[Annotated[int, Field(ge=1, le=MAX_COUNT)]] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_LEVELS_PER_KIND,
        description="Closed-loop concurrency levels.",
    )
    rate: list[Annotated[float, Field(gt=0, le=MAX_COUNT)]] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_LEVELS_PER_KIND,
        description="Open-loop request rates (requests per second).",
    )
    requests_per_level: int = Field(
        ge=1, le=MAX_REQUESTS_PER_LEVEL, description="Requests measured at each level."
    )
    max_tokens: int = Field(ge=1, le=MAX_TOKENS, description="Output tokens per request.")


class Improvement(_Model):
    metric: NonEmpty = Field(description="A metric the gate knows (see METRICS).")
    min_ratio: float = Field(
        gt=0, le=MAX_RATIO, description="Required baseline/candidate ratio (1.2 = 1.2x better)."
    )
    confidence: float = Field(default=0.95, gt=0, lt=1, description="Confidence of the bootstrap interval.")
    max_concurrency: int | None = Field(
        default=None, ge=1, le=MAX_COUNT, description="Required only up to this concurrency."
    )


class NonInferiority(_Model):
    metric: NonEmpty = Field(description="A metric the gate knows (see METRICS).")
    max_ratio: float = Field(
        gt=0, le=MAX_RATIO, description="Largest allowed candidate/baseline ratio (1.1 = 10% worse)."
    )
    # None, not 0.95, by default: a default fills the canonical JSON and would change the
    # digest of every stored document with a non-inferiority rule. The gate reads absent as 0.95.
    confidence: float | None = Field(
        default=None, gt=0, lt=1, description="Confidence of the interval (0.95 when absent)."
    )


class OutputStability(_Model):
    greedy_exact_match_min: float = Field(
        ge=0, le=1, description="Share of greedy outputs that must be token-identical to the baseline."
    )


class History(_Model):
    """No worse than the last `versions` approved versions of this route on each lane, as
    Keptn's relative criteria (keptn/spec, service_level_objective.md: `comparison` with
    `compare_with: several_results`, `number_of_comparison_results`,
    `include_result_with_score: pass`, and a criterion like `<=+10%`)."""

    versions: int = Field(
        ge=1, le=MAX_HISTORY_VERSIONS, description="How many earlier approved versions to compare with."
    )
    metric: NonEmpty = Field(description="A metric the gate knows (see METRICS).")
    max_regression: float = Field(
        ge=0, le=1, description="Largest allowed worsening against each of them (0.1 = 10% worse)."
    )
    confidence: float = Field(default=0.95, gt=0, lt=1, description="Confidence of the interval.")


class Measurement(_Model):
    workloads: dict[LaneName, Workload] = Field(
        max_length=MAX_LIST, description="The workload measured on each lane."
    )
    improve: list[Improvement] = Field(
        default_factory=list, max_length=MAX_LIST, description="Metrics that must improve."
    )
    non_inferiority: list[NonInferiority] = Field(
        default_factory=list,
        max_length=MAX_LIST,
        description="Metrics that must not get worse than a margin.",
    )
    output_stability: OutputStability | None = None
    memory_headroom_min_gib: float | None = Field(
        default=None, ge=0, le=1e6, description="GPU memory that must stay free with speculation on."
    )
    history: History | None = Field(
        default=None, description="Optional: no worse than the route's last approved versions."
    )


class AcceptanceDrop(_Model):
    """A live floor: the route's endpoints report acceptance below `min_ratio` × what the
    approving benchmark measured for `windows` windows in a row (live_app's watch)."""

    kind: Literal["acceptance_drop"] = Field(description="Live acceptance fell below the benchmark's.")
    min_ratio: float = Field(
        gt=0, le=1, description="Lowest live/benchmarked acceptance rate ratio (0.8 = 80% of it)."
    )
    windows: int = Field(default=3, ge=1, le=1000, description="Consecutive windows below the floor.")


class Rollback(_Model):
    to: NonEmpty = Field(description="`previous`, `speculation_off`, or `version:N`.")
    when: list[Literal["gate_fail", "output_stability_breach", "latency_regression", "manual"]] = Field(
        default_factory=list, max_length=MAX_LIST, description="What triggers the rollback."
    )
    # None, not an empty list, by default: a default fills the canonical JSON, and every
    # document stored before this field would change its digest.
    triggers: list[AcceptanceDrop] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_LIST,
        description="Live triggers with parameters: a trigger proposes the rollback; an approver confirms.",
    )


class ContractDocument(_Model):
    """A speculative-decoding route contract."""

    model_config = ConfigDict(
        title="SpecPact route contract (specpact/v1)",
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
        frozen=True,
    )

    apiVersion: str = Field(max_length=64, description=f"Always `{API_VERSION}`.")  # the format's own name
    route: str = Field(max_length=64, description="The route slug (lowercase letters, digits, dashes).")
    description: str | None = Field(default=None, max_length=4000, description="What the route is for.")
    notes: str | None = Field(default=None, max_length=20000, description="Free text for reviewers.")
    verification: Literal["lossless", "lossy"] | None = Field(
        default=None,
        description="lossless (the default): speculation keeps the target's outputs; lossy: the verifier "
        "may change them, and measurement.output_stability is then required.",
    )
    target: Target
    speculation: Speculation
    assets: list[Asset] = Field(
        default_factory=list, max_length=MAX_LIST, description="Every extra checkpoint the route needs."
    )
    compatibility: Compatibility
    lanes: Lanes
    measurement: Measurement
    rollback: Rollback

    def asset(self, role: str) -> Asset | None:
        return next((a for a in self.assets if a.role == role), None)


def contract_json_schema() -> dict[str, Any]:
    """The published JSON Schema of the format (structure only; engine rules are not in it)."""
    schema = ContractDocument.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
