"""Text Generation Inference: `text-generation-launcher --model-id … --speculate N`, or the
same arguments after `docker run … ghcr.io/huggingface/text-generation-inference:3.3.5`.
TGI has one knob: with Medusa heads in the model repository it runs Medusa, with an MLP
speculator repository that speculator, otherwise n-gram. So a Medusa or MLP-speculator
route launches that repository, which names its base model. Every launcher flag can also
come from the environment under its upper-case name (`SPECULATE=2`)."""

from __future__ import annotations

import re
from typing import Any

from ..engines.tgi import KNOWLEDGE
from ..schema import ContractDocument
from .base import Args, ImportResult, RenderedConfig, Skeleton, common_notes, import_error, rendered
from .cmdline import Image, unwrap
from .words import env_flags, judge, judge_leftovers

ENGINE = "tgi"
PROGRAMS = [("text-generation-launcher",)]
IMAGE = Image(
    re.compile(r"(^|/)huggingface/text-generation-inference$"),
    re.compile(r"^(\d+\.\d+\.\d+)"),
    "TGI's images are tagged <release>[-backend], e.g. ghcr.io/huggingface/text-generation-inference:3.3.5",
)
_BARE = {s for f in KNOWLEDGE.features if f.kind == "flag" and not f.takes_value for s in f.spellings}
_HEADS = {"medusa": "medusa_heads", "mlp_speculator": "mlp_speculator"}


def render(doc: ContractDocument) -> RenderedConfig:
    spec, target = doc.speculation, doc.target
    notes = common_notes(doc, "TGI")
    model_id, revision = target.model, target.revision
    heads = doc.asset(_HEADS[spec.method]) if spec.method in _HEADS else None
    if heads is not None:
        model_id, revision = heads.name, heads.revision
        notes.append(
            f"TGI reads the {spec.method.replace('_', ' ')} from the model repository: --model-id is its "
            f"repository, whose config must name the target {target.model} (loaded at revision main)"
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
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str] | str, engine_version: str | None = None) -> ImportResult:
    cmd = unwrap(argv, PROGRAMS, IMAGE, "TGI", engine_version)
    view = KNOWLEDGE.view(cmd.image_version)
    args = Args(cmd.words, _BARE)
    sk = Skeleton(ENGINE, "TGI", cmd.image_version)
    by_env = env_flags(view)
    other_env: dict[str, str | None] = {}
    for key, value in cmd.env.items():
        if key in by_env:
            args.add(by_env[key].name, value, f"{key} (the environment)")
        else:
            other_env[key] = value
    judge(sk, view, other_env, "env")
    model_id = args.take("--model-id")
    if not model_id:
        raise import_error("no model: expected `text-generation-launcher --model-id MODEL …`")
    revision = args.take("--revision")
    speculate = args.take_int("--speculate")
    kind = _kind(model_id)
    assets: list[dict[str, Any]] = []
    model, target_revision = model_id, revision
    if kind in _HEADS:
        speculation: dict[str, Any] = {"method": kind}
        sk.say(
            "speculation.method",
            f"{kind}: the repository name says so; TGI decides from its config (medusa_num_heads, or "
            "model_type mlp_speculator)",
        )
        heads: dict[str, Any] = {"role": _HEADS[kind], "name": model_id}
        if revision:
            heads["revision"] = revision
        assets.append(heads)
        sk.say("target.model", "placeholder: the base model is named in the repository's config")
        target_revision = None
        if speculate is None:
            sk.say(
                "speculation.num_speculative_tokens", "left out: TGI defaults to what the repository carries"
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
    judge_leftovers(sk, view, args)
    return sk.result(
        notes=cmd.notes,
        model=model,
        revision=target_revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=max_concurrency,
    )


def _kind(model_id: str) -> str | None:
    name = model_id.lower()
    if "medusa" in name:
        return "medusa"
    if "accelerator" in name or "speculator" in name:  # ibm-fms/*-accelerator, ibm-granite/*-speculator
        return "mlp_speculator"
    return None
