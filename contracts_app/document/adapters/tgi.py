"""Text Generation Inference: `text-generation-launcher --model-id … --speculate N`.
TGI has one knob: with Medusa heads in the model repository it runs Medusa, otherwise
n-gram. So a Medusa route launches the heads' repository, which names its base model."""

from __future__ import annotations

from typing import Any

from ..schema import ContractDocument
from .base import (
    Args,
    ImportResult,
    RenderedConfig,
    Skeleton,
    common_notes,
    import_error,
    rendered,
    strip_program,
)

ENGINE = "tgi"
_FLAGS = {"--trust-remote-code", "--disable-custom-kernels", "--json-output"}


def render(doc: ContractDocument) -> RenderedConfig:
    spec, target = doc.speculation, doc.target
    notes = common_notes(doc, "TGI")
    model_id, revision = target.model, target.revision
    heads = doc.asset("medusa_heads")
    if spec.method == "medusa" and heads is not None:
        model_id, revision = heads.name, heads.revision
        notes.append(
            f"TGI reads Medusa heads from the model repository: --model-id is the heads' repository, "
            f"whose config must name the target {target.model}"
        )
    elif spec.method == "ngram":
        notes.append("TGI runs n-gram speculation because the model repository carries no Medusa heads")
    argv = ["text-generation-launcher", "--model-id", model_id]
    if revision:
        argv += ["--revision", revision]
    config: dict[str, Any] = {}
    if spec.method != "none" and spec.num_speculative_tokens is not None:
        argv += ["--speculate", str(spec.num_speculative_tokens)]
        config["speculate"] = spec.num_speculative_tokens
    argv += ["--max-concurrent-requests", str(doc.compatibility.max_concurrency)]
    # --max-batch-size exists but TGI ignores it on NVIDIA GPUs (it batches by tokens).
    notes.append(
        f"TGI batches by tokens (--max-batch-total-tokens): the route's max batch size "
        f"({doc.compatibility.batching.max_batch_size}) is not passed"
    )
    if doc.compatibility.tokenizer.name not in (target.model, model_id):
        notes.append("TGI loads the tokenizer from the model repository; the contract names another one")
    if spec.params and (spec.params.prompt_lookup_min or spec.params.prompt_lookup_max):
        notes.append("TGI's n-gram lookup has no window setting: prompt_lookup_min/max are not passed")
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str]) -> ImportResult:
    args = Args(strip_program(argv, ("text-generation-launcher",)), _FLAGS)
    model_id = args.take("--model-id")
    if not model_id:
        raise import_error("no model: expected `text-generation-launcher --model-id MODEL …`")
    sk = Skeleton(ENGINE, "TGI")
    revision = args.take("--revision")
    speculate = args.take_int("--speculate")
    medusa = "medusa" in model_id.lower()
    assets: list[dict[str, Any]] = []
    model, target_revision = model_id, revision
    if medusa:
        speculation: dict[str, Any] = {"method": "medusa"}
        sk.say(
            "speculation.method",
            "medusa: the repository name says Medusa; TGI decides from the files (heads present → Medusa)",
        )
        heads: dict[str, Any] = {"role": "medusa_heads", "name": model_id}
        if revision:
            heads["revision"] = revision
        assets.append(heads)
        sk.say("target.model", "placeholder: the base model is named in the Medusa repository's config")
        target_revision = None
        if speculate is None:
            sk.say(
                "speculation.num_speculative_tokens", "left out: TGI defaults to the number of Medusa heads"
            )
    elif speculate is not None:
        speculation = {"method": "ngram"}
        sk.say(
            "speculation.method", "ngram: TGI runs n-gram when the repository has no Medusa heads; confirm"
        )
    else:
        speculation = {"method": "none"}
    if speculate is not None:
        speculation["num_speculative_tokens"] = speculate
    max_batch = args.take_int("--max-batch-size")
    max_concurrency = args.take_int("--max-concurrent-requests")
    tokenizer: dict[str, Any] = {"name": model}
    if target_revision:
        tokenizer["revision"] = target_revision
    return sk.result(
        args,
        model=model,
        revision=target_revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=max_concurrency,
    )
