"""Engine rules: what the schema alone cannot say. Each rule returns plain-worded
`FieldError`s; `errors()` are fatal, `warnings()` are shown but do not block an upload.
What depends on the engine release the contract names is in `rules_release`."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from . import archived, rules_release, verification
from .datasets import WORKLOAD_REF_HELP, is_workload_dataset, parse_workload_ref
from .engines import ENGINE_NAMES, HETEROGENEOUS_VOCAB, REQUIRED_ASSET, asset_role
from .errors import FieldError
from .metrics import METRICS, min_requests_for
from .rollback import ROLLBACK_TARGET_HELP, parse_rollback_target
from .schema import ROUTE_PATTERN, Asset, ContractDocument, Improvement, NonInferiority, TokenizerRef

_ROUTE = re.compile(ROUTE_PATTERN)


def errors(doc: ContractDocument) -> list[FieldError]:
    found = [
        *_route(doc),
        *_speculation_shape(doc),
        *_assets(doc),
        *_tokenizers(doc),
        *_params(doc),
        *_batching(doc),
        *_decoding(doc),
        *_lanes(doc),
        *_measurement(doc),
        *_rollback(doc),
        *verification.errors(doc),
    ]
    # One message per field: a setting refused here is not refused again for the release.
    taken = {e.path for e in found}
    return found + [e for e in rules_release.errors(doc) if e.path not in taken]


def warnings(doc: ContractDocument) -> list[FieldError]:
    return [*rules_release.warnings(doc), *_warnings(doc), *archived.warnings(doc)]


def _a(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _engine(doc: ContractDocument) -> str:
    return ENGINE_NAMES[doc.target.engine]


def _route(doc: ContractDocument) -> Iterator[FieldError]:
    if not _ROUTE.fullmatch(doc.route):
        yield FieldError(
            "route",
            "a route is a slug: 1-64 lowercase letters, digits and dashes, "
            "starting and ending with a letter or digit",
        )


def _speculation_shape(doc: ContractDocument) -> Iterator[FieldError]:
    spec = doc.speculation
    if spec.method == "none":
        if spec.num_speculative_tokens is not None:
            yield FieldError(
                "speculation.num_speculative_tokens",
                "speculation is off (method none): remove the token count",
            )
        if spec.params is not None:
            yield FieldError("speculation.params", "speculation is off (method none): it takes no parameters")
        if spec.acceptance_cutoff is not None:
            yield FieldError(
                "speculation.acceptance_cutoff", "speculation is off (method none): nothing to switch off"
            )
    elif spec.num_speculative_tokens is None:
        yield FieldError(
            "speculation.num_speculative_tokens",
            f"method {spec.method} needs the number of tokens to propose",
        )


def _assets(doc: ContractDocument) -> Iterator[FieldError]:
    roles: set[str] = set()
    for i, asset in enumerate(doc.assets):
        if asset.role in roles:
            yield FieldError(f"assets[{i}].role", f"a second {asset.role} asset: each role appears once")
        roles.add(asset.role)
    needed = REQUIRED_ASSET.get(doc.speculation.method)
    if needed and needed not in roles:
        yield FieldError(
            "assets",
            f"method {doc.speculation.method} needs {_a(needed)} {needed} asset; the contract lists none",
        )
    for i, asset in enumerate(doc.assets):
        if asset.role == "draft" and asset.tokenizer is None:
            yield FieldError(
                f"assets[{i}].tokenizer",
                "a draft asset must name its tokenizer, so that the match with the target is checked",
            )


def _same_tokenizer(a: TokenizerRef, b: TokenizerRef) -> bool:
    # A field only one side pins cannot be compared; both sides must name the same thing.
    if a.name != b.name:
        return False
    if a.revision and b.revision and a.revision != b.revision:
        return False
    return not (a.digest and b.digest and a.digest != b.digest)


def _tokenizers(doc: ContractDocument) -> Iterator[FieldError]:
    params = doc.speculation.params
    hetero = bool(params and params.heterogeneous_vocab)
    engine = doc.target.engine
    for i, asset in enumerate(doc.assets):
        if asset.role != "draft" or asset.tokenizer is None:
            continue
        if _same_tokenizer(asset.tokenizer, doc.compatibility.tokenizer):
            continue
        if hetero and engine in HETEROGENEOUS_VOCAB:
            continue
        if engine in HETEROGENEOUS_VOCAB:
            how = f"declare speculation.params.heterogeneous_vocab: true ({HETEROGENEOUS_VOCAB[engine]})"
        else:
            how = f"{_engine(doc)} has no mode for a draft with another vocabulary"
        yield FieldError(
            f"assets[{i}].tokenizer",
            f"the draft's tokenizer ({_describe(asset.tokenizer)}) differs from the target's "
            f"({_describe(doc.compatibility.tokenizer)}): {how}",
        )


def _describe(tok: TokenizerRef) -> str:
    return f"{tok.name}@{tok.revision}" if tok.revision else tok.name


def _fallback_types(doc: ContractDocument) -> Iterator[FieldError]:
    """llama.cpp's stacked --spec-type list: the method's own type first, then these."""
    p, path = doc.speculation.params, "speculation.params.fallback_types"
    assert p is not None and p.fallback_types is not None
    if doc.target.engine != "llamacpp":
        yield FieldError(path, "a list of --spec-type fallbacks is llama.cpp's; other engines run one method")
        return
    own = f"ngram-{p.ngram_variant or 'simple'}" if doc.speculation.method == "ngram" else None
    seen: set[str] = set()
    for i, name in enumerate(p.fallback_types):
        if name == own:
            yield FieldError(f"{path}[{i}]", f"{name} is the method's own type, already tried first")
        elif name in seen:
            yield FieldError(f"{path}[{i}]", f"{name} is listed twice")
        seen.add(name)


def _params(doc: ContractDocument) -> Iterator[FieldError]:
    p = doc.speculation.params
    method, engine = doc.speculation.method, doc.target.engine
    if method == "early_exit" and (p is None or p.early_exit_layer is None):
        yield FieldError(
            "speculation.params.early_exit_layer", "method early_exit needs the layer that drafts"
        )
    if p is None or method == "none":
        return
    if p.prompt_lookup_min is not None or p.prompt_lookup_max is not None:
        if method != "ngram":
            name = "prompt_lookup_min" if p.prompt_lookup_min is not None else "prompt_lookup_max"
            yield FieldError(f"speculation.params.{name}", f"applies to method ngram only, not {method}")
        elif (
            p.prompt_lookup_min is not None
            and p.prompt_lookup_max is not None
            and p.prompt_lookup_min > p.prompt_lookup_max
        ):
            yield FieldError(
                "speculation.params.prompt_lookup_min",
                f"prompt_lookup_min ({p.prompt_lookup_min}) is larger than "
                f"prompt_lookup_max ({p.prompt_lookup_max})",
            )
    if p.ngram_variant is not None:
        if engine != "llamacpp":
            yield FieldError(
                "speculation.params.ngram_variant", "n-gram variants are llama.cpp's (--spec-type ngram-*)"
            )
        elif method != "ngram":
            yield FieldError(
                "speculation.params.ngram_variant", f"applies to method ngram only, not {method}"
            )
    if p.fallback_types is not None:
        yield from _fallback_types(doc)
    if p.heterogeneous_vocab:
        if method != "draft_model":
            yield FieldError("speculation.params.heterogeneous_vocab", "applies to method draft_model only")
        elif engine not in HETEROGENEOUS_VOCAB:
            yield FieldError(
                "speculation.params.heterogeneous_vocab",
                f"{_engine(doc)} has no heterogeneous-vocabulary mode (only Transformers and vLLM do)",
            )
    if p.early_exit_layer is not None and method != "early_exit":
        yield FieldError(
            "speculation.params.early_exit_layer", f"applies to method early_exit only, not {method}"
        )
    if p.token_schedule is not None:
        yield from _token_schedule(doc)
    least = p.min_speculative_tokens
    if least is not None and least > (doc.speculation.num_speculative_tokens or 0):
        yield FieldError(
            "speculation.params.min_speculative_tokens",
            f"larger than speculation.num_speculative_tokens ({doc.speculation.num_speculative_tokens})",
        )
    if p.parallel_drafting:
        if engine not in ("vllm", "trtllm"):
            yield FieldError(
                "speculation.params.parallel_drafting",
                f"parallel drafting is vLLM's and TensorRT-LLM's (PARD); {_engine(doc)} has none",
            )
        elif engine == "trtllm" and method != "draft_model":
            yield FieldError(
                "speculation.params.parallel_drafting",
                f"TensorRT-LLM drafts in parallel with a PARD draft model (method draft_model), not {method}",
            )
        elif method not in ("draft_model", "eagle", "eagle3"):
            yield FieldError(
                "speculation.params.parallel_drafting",
                f"vLLM drafts in parallel with EAGLE and draft-model methods only, not {method}",
            )
    for name in ("eagle_topk", "num_draft_tokens"):
        if getattr(p, name) is None:
            continue
        if engine != "sglang":
            yield FieldError(
                f"speculation.params.{name}", "an SGLang EAGLE tree setting; the engine is not SGLang"
            )
        elif method not in ("eagle", "eagle3", "mtp", "draft_model"):
            yield FieldError(
                f"speculation.params.{name}",
                f"applies to SGLang's tree drafting (EAGLE, MTP, draft), not {method}",
            )


def _token_schedule(doc: ContractDocument) -> Iterator[FieldError]:
    p, path = doc.speculation.params, "speculation.params.token_schedule"
    assert p is not None and p.token_schedule is not None
    if doc.target.engine not in ("vllm", "trtllm"):
        yield FieldError(
            path, f"a per-batch-size token schedule is vLLM's and TensorRT-LLM's; {_engine(doc)} has none"
        )
        return
    previous = 0
    for i, step in enumerate(p.token_schedule):
        if step.up_to_batch_size <= previous:
            yield FieldError(f"{path}[{i}].up_to_batch_size", "steps go from smaller to larger batches")
        previous = max(previous, step.up_to_batch_size)
        most = doc.speculation.num_speculative_tokens or 0
        if step.num_speculative_tokens > most:
            yield FieldError(
                f"{path}[{i}].num_speculative_tokens",
                f"more than speculation.num_speculative_tokens ({most})",
            )


def _batching(doc: ContractDocument) -> Iterator[FieldError]:
    batching = doc.compatibility.batching
    if (
        doc.target.engine == "transformers"
        and doc.speculation.method != "none"
        and batching.max_batch_size > 1
    ):
        yield FieldError(
            "compatibility.batching.max_batch_size",
            f"Transformers assisted generation runs batch size 1 only; {batching.max_batch_size} "
            "is not possible with speculation on",
        )


def _decoding(doc: ContractDocument) -> Iterator[FieldError]:
    decoding = doc.compatibility.decoding
    yield from _duplicates(decoding.modes, "compatibility.decoding.modes", "mode")
    if decoding.temperature_max is not None and "sampling" not in decoding.modes:
        yield FieldError(
            "compatibility.decoding.temperature_max",
            "a temperature applies to sampling, which is not an allowed mode",
        )


def _duplicates(items: Sequence[object], path: str, what: str) -> Iterator[FieldError]:
    seen: set[object] = set()
    for i, item in enumerate(items):
        if item in seen:
            yield FieldError(f"{path}[{i}]", f"{what} {item} is listed twice")
        seen.add(item)


def _lanes(doc: ContractDocument) -> Iterator[FieldError]:
    yield from _duplicates(doc.lanes.allowed, "lanes.allowed", "lane")
    yield from _duplicates(doc.lanes.excluded, "lanes.excluded", "lane")
    allowed = set(doc.lanes.allowed)
    for i, lane in enumerate(doc.lanes.excluded):
        if lane in allowed:
            yield FieldError(f"lanes.excluded[{i}]", f"lane {lane} is both allowed and excluded")


def _measurement(doc: ContractDocument) -> Iterator[FieldError]:
    m = doc.measurement
    allowed, excluded = set(doc.lanes.allowed), set(doc.lanes.excluded)
    for lane, workload in m.workloads.items():
        path = f"measurement.workloads.{lane}"
        if lane in excluded:
            yield FieldError(path, f"lane {lane} is excluded: a workload cannot be measured on it")
        elif lane not in allowed:
            yield FieldError(path, f"lane {lane} is not an allowed lane (lanes.allowed)")
        if workload.concurrency is None and workload.rate is None:
            yield FieldError(path, "a workload needs concurrency levels or request rates")
        if is_workload_dataset(workload.dataset) and parse_workload_ref(workload.dataset) is None:
            yield FieldError(f"{path}.dataset", WORKLOAD_REF_HELP)
        if workload.concurrency is not None:
            yield from _duplicates(workload.concurrency, f"{path}.concurrency", "level")
        if workload.rate is not None:
            yield from _duplicates(workload.rate, f"{path}.rate", "rate")
    standards: list[tuple[str, Sequence[Improvement | NonInferiority]]] = [
        ("improve", m.improve),
        ("non_inferiority", m.non_inferiority),
    ]
    for section, items in standards:
        seen: set[str] = set()
        for i, item in enumerate(items):
            path = f"measurement.{section}[{i}].metric"
            if item.metric not in METRICS:
                yield FieldError(path, f"unknown metric {item.metric}; known: {', '.join(sorted(METRICS))}")
            elif item.metric in seen:
                yield FieldError(path, f"metric {item.metric} has two standards in {section}")
            seen.add(item.metric)
    if m.history is not None and m.history.metric not in METRICS:
        yield FieldError(
            "measurement.history.metric",
            f"unknown metric {m.history.metric}; known: {', '.join(sorted(METRICS))}",
        )


def _rollback(doc: ContractDocument) -> Iterator[FieldError]:
    if parse_rollback_target(doc.rollback.to) is None:
        yield FieldError("rollback.to", ROLLBACK_TARGET_HELP)
    yield from _duplicates(doc.rollback.when, "rollback.when", "trigger")
    yield from _duplicates([t.kind for t in doc.rollback.triggers or []], "rollback.triggers", "trigger")


def _unused_asset(doc: ContractDocument, asset: Asset) -> bool:
    return asset_role(doc.speculation.method) != asset.role


def _warnings(doc: ContractDocument) -> Iterator[FieldError]:
    engine, method = doc.target.engine, doc.speculation.method
    if doc.target.revision is None and doc.target.digest is None:
        yield FieldError("target.revision", "the target model is not pinned to a revision")
    if engine == "sglang" and method == "ngram":
        yield FieldError("speculation.method", "SGLang's n-gram speculation runs on CUDA GPUs only")
    for i, asset in enumerate(doc.assets):
        if _unused_asset(doc, asset):
            yield FieldError(f"assets[{i}]", f"method {method} does not use a {asset.role} asset")
        if asset.revision is None and asset.digest is None:
            yield FieldError(f"assets[{i}].revision", f"the {asset.role} asset is not pinned to a revision")
    params = doc.speculation.params
    if params and params.heterogeneous_vocab:
        draft = doc.asset("draft")
        if draft and draft.tokenizer and _same_tokenizer(draft.tokenizer, doc.compatibility.tokenizer):
            yield FieldError(
                "speculation.params.heterogeneous_vocab",
                "the draft shares the target's tokenizer; the mode is not needed",
            )
    batching = doc.compatibility.batching
    off = batching.speculation_off_above_batch_size
    if off is not None:
        if method == "none":
            yield FieldError(
                "compatibility.batching.speculation_off_above_batch_size", "speculation is already off"
            )
        elif engine not in ("vllm", "trtllm"):  # TensorRT-LLM: speculative_config max_concurrency
            yield FieldError(
                "compatibility.batching.speculation_off_above_batch_size",
                f"{_engine(doc)} cannot switch speculation off by batch size; the route must enforce it",
            )
        if off >= batching.max_batch_size:
            yield FieldError(
                "compatibility.batching.speculation_off_above_batch_size",
                f"never reached: the batch is at most {batching.max_batch_size}",
            )
    if not doc.lanes.allowed:
        yield FieldError("lanes.allowed", "no lane is allowed: the route is approved for no workload")
    for lane in doc.lanes.allowed:
        if lane not in doc.measurement.workloads:
            yield FieldError(
                "measurement.workloads", f"allowed lane {lane} has no workload: it is not measured"
            )
    if method != "none" and not doc.measurement.improve:
        yield FieldError("measurement.improve", "no metric must improve: the gate cannot show a speedup")
    for i, item in enumerate(doc.measurement.improve):
        if item.min_ratio < 1:
            yield FieldError(
                f"measurement.improve[{i}].min_ratio", "below 1: this allows the metric to get worse"
            )
    if method == "none" and doc.rollback.to == "speculation_off":
        yield FieldError("rollback.to", "speculation is already off on this route")
    yield from _small_samples(doc)


def _small_samples(doc: ContractDocument) -> Iterator[FieldError]:
    """A lane whose requests_per_level is too few for a tail quantile its rules name: the
    gate's interval would be too narrow (the rule is `metrics.min_requests_for`)."""
    named = [(f"measurement.improve[{i}]", r.metric) for i, r in enumerate(doc.measurement.improve)] + [
        (f"measurement.non_inferiority[{i}]", r.metric) for i, r in enumerate(doc.measurement.non_inferiority)
    ]
    for lane, workload in doc.measurement.workloads.items():
        n = workload.requests_per_level
        short = [
            (where, metric, needed)
            for where, metric in named
            if (needed := min_requests_for(metric)) and n < needed
        ]
        if short:
            where, metric, needed = max(short, key=lambda s: s[2])
            yield FieldError(
                f"measurement.workloads.{lane}.requests_per_level",
                f"{n} requests per level are too few for {metric} ({where}): a tail quantile's interval "
                f"needs about {needed}, else it is too narrow and the verdict less certain than it reads",
            )
