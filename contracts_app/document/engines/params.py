"""Engine speculation knobs the contract's own fields do not cover: `speculation.params.engine`
(a mapping, param name → value) and the environment variables that change speculation,
`speculation.env` (name → value as text).

Each entry is typed (int, float, bool, str or one of `choices`, with a range) and says what
it changes (`effect`): `outputs` (what the route returns: acceptance thresholds that accept
tokens the target would not have chosen), `proposals` (what is drafted or verified, so the
speed the benchmark measured, but not the output) or `placement` (where and how the draft
runs: devices, kernels, parallelism). A diff classes an `outputs` or `proposals` change as
route-identity (the route's benchmark no longer holds) and a `placement` change as policy.

Which releases accept a knob is not written here: each entry names its spellings (the
flag or `--speculative-config` key, newest first, then older ones) and the engine's table
(`engines/<engine>.py`, each feature citing where it was read) says when each spelling was
added or removed. Sources of the types and ranges are cited beside each group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .release import Feature, Kind, ReleaseView, history

Effect = Literal["outputs", "proposals", "placement"]
ParamType = Literal["int", "float", "bool", "str", "choice"]
ValueT = bool | int | float | str
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


@dataclass(frozen=True)
class Param:
    name: str  # the key in speculation.params.engine (or speculation.env)
    spellings: tuple[str, ...]  # flag, config key or variable; the newest spelling first
    kind: Kind  # flag | key | env: how the engine's table lists the spellings
    type: ParamType
    effect: Effect
    source: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()  # the contract methods it applies to; empty: every method
    bare: bool = False  # a flag without a value: only `true` can be said (false is the default)
    help: str = ""

    def describe(self) -> str:
        if self.type == "choice":
            return f"one of {', '.join(self.choices)}"
        if self.type in ("int", "float"):
            what = "an integer" if self.type == "int" else "a number"
            if self.minimum is not None and self.maximum is not None:
                return f"{what} from {_num(self.minimum)} to {_num(self.maximum)}"
            if self.minimum is not None:
                return f"{what} ≥ {_num(self.minimum)}"
            return what if self.maximum is None else f"{what} ≤ {_num(self.maximum)}"
        return {"bool": "true or false", "str": "text"}[self.type]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# llama.cpp: `llama-server --help` of b11434 and common/arg.cpp (ggml-org/llama.cpp, the
# `common_params_speculative` fields p_min / p_split are floats read with std::stof,
# n_gpu_layers with std::stoi); the old spellings (--draft-p-min …) are #22397's.
_LCPP = "ggml-org/llama.cpp common/arg.cpp (llama-server --help, b11434)"
_LCPP_DRAFT = ("draft_model", "eagle3", "mtp")
LLAMACPP: tuple[Param, ...] = (
    Param(
        "draft_p_min", ("--spec-draft-p-min", "--draft-p-min"), "flag", "float", "proposals", _LCPP,
        0.0, 1.0, methods=_LCPP_DRAFT,
        help="the draft stops at a token whose probability is below this",
    ),
    Param(
        "draft_p_split", ("--spec-draft-p-split", "--draft-p-split"), "flag", "float", "proposals", _LCPP,
        0.0, 1.0, methods=_LCPP_DRAFT, help="speculative tree split probability",
    ),
    Param(
        "draft_sampling", ("--spec-draft-sampling",), "flag", "str", "proposals", _LCPP,
        methods=_LCPP_DRAFT, help="how the draft samples (default greedy)",
    ),
    Param(
        "draft_backend_sampling", ("--spec-draft-backend-sampling",), "flag", "bool", "placement", _LCPP,
        methods=_LCPP_DRAFT, bare=True, help="the draft samples on the backend device",
    ),
    Param(
        "draft_device", ("--spec-draft-device", "--device-draft"), "flag", "str", "placement", _LCPP,
        methods=_LCPP_DRAFT, help="devices the draft runs on",
    ),
    Param(
        "draft_gpu_layers", ("--spec-draft-ngl", "--gpu-layers-draft"), "flag", "str", "placement", _LCPP,
        methods=_LCPP_DRAFT, help="draft layers on the GPU (a number, auto or all)",
    ),
    Param(
        "draft_cache_type_k", ("--spec-draft-type-k", "--cache-type-k-draft"), "flag", "str", "proposals",
        _LCPP,
        methods=_LCPP_DRAFT, help="the draft's K cache type (a quantized cache changes its proposals)",
    ),
    Param(
        "draft_cache_type_v", ("--spec-draft-type-v", "--cache-type-v-draft"), "flag", "str", "proposals",
        _LCPP,
        methods=_LCPP_DRAFT, help="the draft's V cache type",
    ),
    Param(
        "draft_threads", ("--spec-draft-threads", "--threads-draft"), "flag", "int", "placement", _LCPP,
        1, 4096,
        methods=_LCPP_DRAFT, help="threads the draft generates with",
    ),
)  # fmt: skip

# vLLM: `SpeculativeConfig` fields (vllm-project/vllm vllm/config/speculative.py, read in
# the released wheels; `draft_sample_method: DraftSampleMethod = "greedy"`, the literal
# "greedy" | "probabilistic"; `draft_tensor_parallel_size: int | None` ≥ 1).
_VLLM = "vllm-project/vllm vllm/config/speculative.py (SpeculativeConfig, released wheels)"
VLLM: tuple[Param, ...] = (
    Param(
        "draft_tensor_parallel_size", ("draft_tensor_parallel_size",), "key", "int", "placement", _VLLM,
        1, 1024, help="tensor parallelism of the draft",
    ),
    Param(
        "disable_padded_drafter_batch", ("disable_padded_drafter_batch",), "key", "bool", "placement",
        _VLLM, help="drafter batches are not padded (EAGLE-style methods)",
    ),
    Param("enforce_eager", ("enforce_eager",), "key", "bool", "placement", _VLLM, help="no CUDA graphs"),
    Param(
        "speculative_token_tree", ("speculative_token_tree",), "key", "str", "proposals", _VLLM,
        methods=("eagle", "eagle3"), help="the EAGLE draft tree, as vLLM's list-of-tuples text",
    ),
    Param(
        "draft_sample_method", ("draft_sample_method",), "key", "choice", "proposals", _VLLM,
        choices=("greedy", "probabilistic"), help="how draft tokens are picked",
    ),
    Param(
        "quantization", ("quantization",), "key", "str", "proposals", _VLLM,
        help="the draft's weight quantization (changes its proposals)",
    ),
    Param("attention_backend", ("attention_backend",), "key", "str", "placement", _VLLM),
    Param("moe_backend", ("moe_backend",), "key", "str", "placement", _VLLM),
    Param("kv_cache_dtype", ("kv_cache_dtype",), "key", "str", "placement", _VLLM),
    Param("use_local_argmax_reduction", ("use_local_argmax_reduction",), "key", "bool", "placement", _VLLM),
    Param(
        "suffix_decoding_max_tree_depth", ("suffix_decoding_max_tree_depth",), "key", "int", "proposals",
        _VLLM, 1, 1_000_000, methods=("suffix",),
    ),
    Param(
        "suffix_decoding_max_cached_requests", ("suffix_decoding_max_cached_requests",), "key", "int",
        "proposals", _VLLM, 0, 1_000_000_000, methods=("suffix",),
    ),
    Param(
        "suffix_decoding_max_spec_factor", ("suffix_decoding_max_spec_factor",), "key", "float",
        "proposals", _VLLM, 0.0, 1_000_000.0, methods=("suffix",),
    ),
    Param(
        "suffix_decoding_min_token_prob", ("suffix_decoding_min_token_prob",), "key", "float", "proposals",
        _VLLM, 0.0, 1.0, methods=("suffix",),
    ),
)  # fmt: skip

# SGLang: ServerArgs fields (sgl-project/sglang python/sglang/srt/server_args.py; from
# 0.5.23 python/sglang/srt/arg_groups/fields/spec.py): `speculative_accept_threshold_single:
# float = 1.0` ("accept a draft token if its probability in the target model is greater
# than this threshold"), `speculative_accept_threshold_acc: float = 1.0` (the accept
# probability is raised from p to min(1, p / threshold_acc)), `speculative_attention_mode`
# choices prefill | decode, `speculative_ngram_match_type: Literal["BFS", "PROB"]`.
_SGL = "sgl-project/sglang python/sglang/srt/server_args.py (ServerArgs, released wheels)"
_SGL_TREE = ("eagle", "eagle3", "mtp", "draft_model")
SGLANG: tuple[Param, ...] = (
    Param(
        "speculative_accept_threshold_single", ("--speculative-accept-threshold-single",), "flag", "float",
        "outputs", _SGL, 0.0, 1.0, methods=_SGL_TREE,
        help="accepts a draft token the target gives at least this probability (below 1.0: outputs change)",
    ),
    Param(
        "speculative_accept_threshold_acc", ("--speculative-accept-threshold-acc",), "flag", "float",
        "outputs", _SGL, 0.0, 1.0, methods=_SGL_TREE,
        help="raises the accept probability from p to min(1, p / threshold) (below 1.0: outputs change)",
    ),
    Param(
        "speculative_attention_mode", ("--speculative-attention-mode",), "flag", "choice", "placement",
        _SGL, choices=("prefill", "decode"),
    ),
    Param(
        "speculative_draft_model_quantization", ("--speculative-draft-model-quantization",), "flag", "str",
        "proposals", _SGL, methods=_SGL_TREE, help="the draft's weight quantization",
    ),
    Param("speculative_draft_attention_backend", ("--speculative-draft-attention-backend",), "flag", "str",
          "placement", _SGL),
    Param("speculative_moe_runner_backend", ("--speculative-moe-runner-backend",), "flag", "str",
          "placement", _SGL),
    Param("speculative_draft_load_format", ("--speculative-draft-load-format",), "flag", "str",
          "placement", _SGL),
    Param(
        "speculative_ngram_min_bfs_breadth", ("--speculative-ngram-min-bfs-breadth",), "flag", "int",
        "proposals", _SGL, 1, 1_000_000, methods=("ngram",),
    ),
    Param(
        "speculative_ngram_max_bfs_breadth", ("--speculative-ngram-max-bfs-breadth",), "flag", "int",
        "proposals", _SGL, 1, 1_000_000, methods=("ngram",),
    ),
    Param(
        "speculative_ngram_match_type", ("--speculative-ngram-match-type",), "flag", "choice", "proposals",
        _SGL, choices=("BFS", "PROB"), methods=("ngram",),
    ),
    Param(
        # Renamed from --speculative-ngram-branch-length in sgl-project/sglang#21181 (0.5.10).
        "speculative_ngram_max_trie_depth",
        ("--speculative-ngram-max-trie-depth", "--speculative-ngram-branch-length"), "flag", "int",
        "proposals", _SGL, 1, 1_000_000, methods=("ngram",),
    ),
    Param(
        "speculative_ngram_capacity", ("--speculative-ngram-capacity",), "flag", "int", "proposals", _SGL,
        1, 10**12, methods=("ngram",),
    ),
)  # fmt: skip

PARAMS: dict[str, tuple[Param, ...]] = {
    "llamacpp": LLAMACPP,
    "vllm": VLLM,
    "sglang": SGLANG,
    "tgi": (),  # --speculate N is the whole of TGI's speculation (num_speculative_tokens)
    "transformers": (),
}

# Environment variables that change speculation (speculation.env). vLLM: vllm/envs.py;
# SGLang: docs/advanced_features/speculative_decoding.md (SGLANG_ENABLE_SPEC_V2 selects the
# overlap "spec v2" worker; SGLANG_NGRAM_FORCE_GREEDY_VERIFY makes NGRAM verify greedily
# whatever the request's sampling). llama.cpp's LLAMA_ARG_* and TGI's variables stand for
# flags: an import reads them as the flag. The release that added each variable is not
# established: the engine tables list them without a first release, so every release read
# accepts them (vllm/envs.py's own note that VLLM_USE_V1 is gone from 0.33.0 is not in the
# table either).
ENV: dict[str, tuple[Param, ...]] = {
    "vllm": (
        Param("VLLM_USE_V1", ("VLLM_USE_V1",), "env", "bool", "proposals", "vllm-project/vllm vllm/envs.py",
              help="0 selects the V0 engine, the only one that acts on disable_by_batch_size"),
        Param("VLLM_USE_V2_MODEL_RUNNER", ("VLLM_USE_V2_MODEL_RUNNER",), "env", "bool", "placement",
              "vllm-project/vllm vllm/envs.py", help="the V2 model runner drafts and verifies"),
    ),
    "sglang": (
        Param("SGLANG_ENABLE_SPEC_V2", ("SGLANG_ENABLE_SPEC_V2",), "env", "bool", "placement",
              "sgl-project/sglang docs/advanced_features/speculative_decoding.md",
              help="the overlap scheduler for speculative decoding"),
        Param("SGLANG_NGRAM_FORCE_GREEDY_VERIFY", ("SGLANG_NGRAM_FORCE_GREEDY_VERIFY",), "env", "bool",
              "outputs", "sgl-project/sglang docs/advanced_features/speculative_decoding.md",
              methods=("ngram",), help="NGRAM verifies greedily even for sampled requests"),
    ),
    "llamacpp": (),
    "tgi": (),
    "transformers": (),
}  # fmt: skip


def param(engine: str, name: str, *, env: bool = False) -> Param | None:
    table = ENV if env else PARAMS
    return next((p for p in table.get(engine, ()) if p.name == name), None)


def by_spelling(engine: str, spelling: str, *, env: bool = False) -> Param | None:
    table = ENV if env else PARAMS
    return next((p for p in table.get(engine, ()) if spelling in p.spellings), None)


def effect_of(name: str, *, env: bool = False) -> Effect | None:
    """The effect of a param by name over every engine (a diff does not know the engine of a
    path); the strongest when two engines share a name, so a diff errs towards a benchmark."""
    table = ENV if env else PARAMS
    found = {p.effect for ps in table.values() for p in ps if p.name == name}
    order: tuple[Effect, ...] = ("outputs", "proposals", "placement")
    return next((e for e in order if e in found), None)


def features_of(view: ReleaseView, p: Param) -> list[Feature]:
    """Every feature of the engine's table that spells `p`, in any release."""
    return [f for f in view.knowledge.features if f.kind == p.kind and f.name in p.spellings]


def spelling_in(view: ReleaseView, p: Param) -> str | None:
    """The spelling of `p` that `view`'s release reads, newest spelling first."""
    active = {f.name for f in view.features(p.kind)}
    return next((s for s in p.spellings if s in active), None)


def when(view: ReleaseView, p: Param) -> str:
    feats = features_of(view, p)
    return history(view.knowledge, feats) if feats else f"{p.name} ({p.source})"


def parse(p: Param, text: str | None) -> ValueT:
    """The typed value of a flag's or variable's text; ValueError says why not."""
    if p.bare and text is None:
        return True
    if text is None:
        raise ValueError("takes a value")
    raw = text.strip()
    if p.type == "bool":
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError(f"takes true or false, got {text!r}")
    if p.type == "int":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"takes a whole number, got {text!r}") from None
    if p.type == "float":
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"takes a number, got {text!r}") from None
    return raw


def check(p: Param, value: object) -> str | None:
    """Why `value` is not a valid value of `p`, or None."""
    if p.type == "bool":
        if not isinstance(value, bool):
            return f"takes true or false, not {value!r}"
        if p.bare and value is False:
            return "false is the engine's default (the flag takes no value): leave it out"
        return None
    if p.type in ("int", "float"):
        ok = isinstance(value, int) if p.type == "int" else isinstance(value, int | float)
        if isinstance(value, bool) or not ok:
            return f"takes {p.describe()}, not {value!r}"
        assert isinstance(value, int | float)
        if (p.minimum is not None and value < p.minimum) or (p.maximum is not None and value > p.maximum):
            return f"takes {p.describe()}, not {value!r}"
        return None
    if not isinstance(value, str) or not value:
        return f"takes {p.describe()}, not {value!r}"
    if p.type == "choice" and value not in p.choices:
        return f"takes {p.describe()}, not {value!r}"
    return None


def env_text(p: Param, value: str) -> str | None:
    """Why an environment value is not one `p` reads (variables hold text), or None."""
    try:
        typed = parse(p, value)
    except ValueError as exc:
        return str(exc)
    return check(p, typed)


def text(p: Param, value: ValueT) -> str:
    """The value as the engine's command line spells it (a float always with its point, so
    that a render, an import and a second render agree)."""
    if p.type == "float":
        return repr(float(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
