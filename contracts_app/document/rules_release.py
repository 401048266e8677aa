"""Engine rules that depend on the release a contract names (`target.engine_version`): the
method and every speculation setting must be something that release can be told. Each
message names the field and the release that gained or lost what the field needs."""

from __future__ import annotations

from collections.abc import Iterator

from . import params_rules, rules_trtllm
from .engines import KNOWLEDGE, UNSUPPORTED_HINT, ReleaseView, asset_role, release_view
from .engines.llamacpp import NGRAM_CACHE_TOKENS
from .engines.release import Feature, history
from .errors import FieldError
from .schema import ContractDocument

# Optional settings whose carrier (flag or key) must exist in the named release.
_PARAMS = (
    "prompt_lookup_min",
    "prompt_lookup_max",
    "token_schedule",
    "heterogeneous_vocab",
    "parallel_drafting",
    "min_speculative_tokens",
    "eagle_topk",
    "num_draft_tokens",
    "fallback_types",
)
# Settings rules.py already refuses for a whole engine (one error per problem).
_ENGINE_LEVEL = frozenset(
    {
        "eagle_topk",
        "num_draft_tokens",
        "token_schedule",
        "heterogeneous_vocab",
        "parallel_drafting",
        "fallback_types",
    }
)
OFF_ABOVE = "compatibility.batching.speculation_off_above_batch_size"


def view_of(doc: ContractDocument) -> ReleaseView:
    return release_view(doc.target.engine, doc.target.engine_version)


def variant_of(doc: ContractDocument) -> str | None:
    p = doc.speculation.params
    if doc.target.engine != "llamacpp" or doc.speculation.method != "ngram":
        return None
    return p.ngram_variant if p and p.ngram_variant else "simple"


def method_feature(view: ReleaseView, method: str, variant: str | None) -> Feature | None:
    return next(
        (f for f in view.features("method") if f.method == method and (f.variant in (None, variant))),
        None,
    )


def errors(doc: ContractDocument) -> list[FieldError]:
    view = view_of(doc)
    if doc.speculation.method == "none":
        return params_rules.errors(doc, view)
    found = list(_release(doc, view))
    if found:
        return found  # a release the table cannot speak for: its settings cannot be checked
    method = list(_method(doc, view))
    if method:
        return method
    return [
        *_params(doc, view),
        *params_rules.errors(doc, view),
        *_assets(doc, view),
        *_off_above(doc, view),
        *_engine_specific(doc, view),
        *_acceptance_cutoff(doc, view),
        *rules_trtllm.errors(doc, view),
    ]


def warnings(doc: ContractDocument) -> list[FieldError]:
    view = view_of(doc)
    if view.assumed:
        return [FieldError("target.engine_version", f"{view.assumed}; engine rules change between releases")]
    if view.older_than_known and doc.speculation.method == "none":
        return [FieldError("target.engine_version", _older(view))]
    return []


def _older(view: ReleaseView) -> str:
    k = view.knowledge
    return f"{view.label} is older than the releases SpecPact knows ({k.oldest} and later)"


def _release(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    if view.gap is not None:
        yield FieldError("target.engine_version", f"{view.label}: {view.gap.reason}")
    elif view.older_than_known:
        notes = [n for n in view.knowledge.notes if "before" in n][:1]
        yield FieldError("target.engine_version", " ".join([_older(view) + ":", *notes]).rstrip(":"))


def _method(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    method, engine, variant = doc.speculation.method, doc.target.engine, variant_of(doc)
    if method_feature(view, method, variant) is not None:
        return
    k = KNOWLEDGE[engine]
    ever = [
        f for f in k.features if f.kind == "method" and f.method == method and f.variant in (None, variant)
    ]
    if ever:
        what = f"n-gram variant {variant}" if variant else f"method {method}"
        yield FieldError("speculation.method", f"{view.label} cannot run {what}: {history(k, ever)}")
    else:
        yield FieldError(
            "speculation.method", f"{k.name} cannot run method {method}: {UNSUPPORTED_HINT[engine]}"
        )


def _set(doc: ContractDocument, name: str) -> bool:
    p = doc.speculation.params
    value = getattr(p, name, None) if p else None
    return value not in (None, False)


def _params(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    method, variant, k = doc.speculation.method, variant_of(doc), view.knowledge
    p = doc.speculation.params
    for name in _PARAMS:
        path = f"speculation.params.{name}"
        if not _set(doc, name) or view.carriers(path, method, variant):
            continue
        if name == "prompt_lookup_min" and p is not None and _min_is_implied(doc, view):
            continue
        ever = [
            f
            for f in k.features
            if f.field == path and f.method in (None, method) and f.variant in (None, variant)
        ]
        if ever:
            yield FieldError(path, f"{view.label} cannot express it: {history(k, ever)}")
        elif name not in _ENGINE_LEVEL:  # those are rules.py's to refuse, once
            yield FieldError(path, _no_setting(doc, view, name))


def _no_setting(doc: ContractDocument, view: ReleaseView, name: str) -> str:
    engine, k = doc.target.engine, view.knowledge
    if name == "prompt_lookup_min" and engine == "llamacpp":
        return (
            f"{view.label} matches one n-gram length ({variant_of(doc)}): prompt_lookup_min must equal "
            "prompt_lookup_max, or be left out"
        )
    if name == "prompt_lookup_min" and engine == "transformers":
        return (
            "generate() matches n-grams from max_matching_ngram_size down to 1: prompt_lookup_min is always 1"
        )
    if engine == "tgi":
        return "TGI's n-gram speculation has no lookup window: its one setting is --speculate N"
    variant = variant_of(doc)
    return f"{k.name} has no setting for it with method {doc.speculation.method}" + (
        f" (n-gram variant {variant})" if variant else ""
    )


def _min_is_implied(doc: ContractDocument, view: ReleaseView) -> bool:
    """A single-size matcher (llama.cpp) says min = max; Transformers always matches down to 1."""
    p = doc.speculation.params
    assert p is not None
    if doc.target.engine == "llamacpp":
        return p.prompt_lookup_max is not None and p.prompt_lookup_min == p.prompt_lookup_max
    if doc.target.engine == "transformers":
        return p.prompt_lookup_min == 1
    return False


def _assets(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    method, k = doc.speculation.method, view.knowledge
    role = asset_role(method)
    asset = doc.asset(role) if role else None
    if asset is None:
        return
    if role == "mtp_assistant":
        path = "assets.mtp_assistant"
        if not view.carriers(path, method):
            ever = [f for f in k.features if f.field == path]
            why = history(k, ever) if ever else f"{k.name} runs MTP from the target's own layers only"
            yield FieldError(
                f"assets[{doc.assets.index(asset)}]",
                f"{view.label} cannot load an MTP assistant checkpoint: {why}",
            )
    if (
        asset.revision
        and doc.target.engine == "sglang"
        and not view.has("--speculative-draft-model-revision")
    ):
        ever = [f for f in k.features if f.name == "--speculative-draft-model-revision"]
        yield FieldError(
            f"assets[{doc.assets.index(asset)}].revision",
            f"{view.label} cannot be told the checkpoint's revision: {history(k, ever)}",
        )


def _off_above(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    off = doc.compatibility.batching.speculation_off_above_batch_size
    if off is None or doc.target.engine != "vllm":
        return  # other engines: a warning (rules.py), the route must enforce it
    if view.concept("speculation_off_above") is not None:
        if off < 2:
            yield FieldError(OFF_ABOVE, "vLLM's disable_by_batch_size must be at least 2")
        return
    yield FieldError(
        OFF_ABOVE,
        f"{view.label} cannot switch speculation off by batch size: disable_by_batch_size does nothing "
        "since the V0 engine was removed in v0.10.0 and was deleted in vllm-project/vllm#35060 (gone "
        "from 0.17.0); use speculation.params.token_schedule (num_speculative_tokens_per_batch_size, "
        "vLLM 0.24.0 and later) with 0 tokens above that batch size",
    )


def _engine_specific(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    spec, engine = doc.speculation, doc.target.engine
    if (
        engine == "llamacpp"
        and variant_of(doc) == "cache"
        and spec.num_speculative_tokens != NGRAM_CACHE_TOKENS
    ):
        yield FieldError(
            "speculation.num_speculative_tokens",
            f"{view.label}'s ngram-cache drafts {NGRAM_CACHE_TOKENS} tokens and no flag changes it "
            f"(measured on b11434); say {NGRAM_CACHE_TOKENS} or use another n-gram variant",
        )
    fallbacks = spec.params.fallback_types if spec.params else None
    if engine == "llamacpp" and fallbacks and view.concept("spec_type_list") is not None:
        types = set(view.names("method"))
        for i, name in enumerate(fallbacks):
            if name not in types:
                yield FieldError(
                    f"speculation.params.fallback_types[{i}]", f"{view.label} has no type {name}"
                )
    counted = spec.method in ("draft_model", "early_exit") or (
        spec.method == "mtp" and doc.asset("mtp_assistant")
    )
    if engine == "transformers" and counted and not view.has("num_assistant_tokens"):
        yield FieldError(
            "speculation.num_speculative_tokens",
            f"{view.label} cannot be told the assistant's token count: num_assistant_tokens arrived in "
            "Transformers 4.35.0 (generation/configuration_utils.py)",
        )
    if spec.method == "dspark" and engine != "vllm" and doc.asset("draft") is None:
        # Only vLLM reads DSpark weights from the target's checkpoint (vllm/config/speculative.py
        # 0.33.0); SGLang (--speculative-draft-model-path, "the draft checkpoint block_size") and
        # llama-server (-md) load a drafter checkpoint.
        yield FieldError(
            "assets", f"{view.label} runs DSpark from a drafter checkpoint: list it as a draft asset"
        )
    own_layers = spec.method == "mtp" and doc.asset("mtp_assistant") is None
    if engine == "transformers" and own_layers and view.concept("mtp_own_layers") is None:
        yield FieldError(
            "speculation.method",
            f"{view.label} has no use_mtp: generate() runs a model's "
            "own MTP layers from Transformers 5.14.0 (generation/configuration_utils.py)",
        )


CUTOFF = "speculation.acceptance_cutoff"


def _acceptance_cutoff(doc: ContractDocument, view: ReleaseView) -> Iterator[FieldError]:
    """An engine-side switch-off (issue 23 point 5) only where the release can be told it."""
    if doc.speculation.acceptance_cutoff is None:
        return
    if view.carriers(f"{CUTOFF}.window", doc.speculation.method):
        return
    k = view.knowledge
    ever = [f for f in k.features if f.field in (f"{CUTOFF}.window", f"{CUTOFF}.min_rate")]
    why = (
        history(k, ever)
        if ever
        else f"{k.name} has no such switch; SpecPact's acceptance watch is the only one"
    )
    yield FieldError(CUTOFF, f"{view.label} cannot switch speculation off by its acceptance rate: {why}")
