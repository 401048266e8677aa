"""llama.cpp: `llama-server -m MODEL --spec-type … [-md DRAFT] --spec-draft-n-max N`.
Types: ngram-simple/-mod/-cache/-map-k/-map-k4v (model-free), draft-simple (a draft
model), eagle3. llama-server loads a local GGUF: there is no revision flag."""

from __future__ import annotations

from typing import Any

from ..engines import REQUIRED_ASSET
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

ENGINE = "llamacpp"
_FLAGS = {
    "--metrics",
    "--jinja",
    "--no-mmap",
    "--mlock",
    "--cont-batching",
    "--no-webui",
    "-fa",
    "--flash-attn",
}


def spec_type(doc: ContractDocument) -> str | None:
    method, p = doc.speculation.method, doc.speculation.params
    if method == "ngram":
        return f"ngram-{p.ngram_variant if p and p.ngram_variant else 'simple'}"
    return {"draft_model": "draft-simple", "eagle3": "eagle3"}.get(method)


def render(doc: ContractDocument) -> RenderedConfig:
    spec, target = doc.speculation, doc.target
    argv = ["llama-server", "-m", target.model]
    config: dict[str, Any] = {}
    notes = common_notes(doc, "llama-server")
    if target.revision:
        notes.append(f"llama-server has no revision flag: -m must be the GGUF of revision {target.revision}")
    kind = spec_type(doc)
    if kind is not None:
        config["spec_type"] = kind
        argv += ["--spec-type", kind]
        role = REQUIRED_ASSET.get(spec.method)
        asset = doc.asset(role) if role else None
        if asset is not None:
            config["spec_draft_model"] = asset.name
            argv += ["-md", asset.name]
        config["spec_draft_n_max"] = spec.num_speculative_tokens
        argv += ["--spec-draft-n-max", str(spec.num_speculative_tokens)]
        p = spec.params
        if spec.method == "ngram" and p and p.prompt_lookup_max is not None:
            config["spec_ngram_size_n"] = p.prompt_lookup_max
            argv += ["--spec-ngram-size-n", str(p.prompt_lookup_max)]
            if p.prompt_lookup_min is not None and p.prompt_lookup_min != p.prompt_lookup_max:
                notes.append(
                    "llama.cpp matches one n-gram size (prompt_lookup_max); prompt_lookup_min is not passed"
                )
    argv += ["--parallel", str(doc.compatibility.batching.max_batch_size)]
    notes.append('per request, llama-server also takes "speculative.type" and "speculative.n_max"')
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str]) -> ImportResult:
    args = Args(strip_program(argv, ("llama-server",)), _FLAGS)
    model = args.take("-m", "--model", "-hf", "--hf-repo")
    if not model:
        raise import_error("no model: expected `llama-server -m MODEL.gguf …`")
    sk = Skeleton(ENGINE, "llama.cpp")
    kind = args.take("--spec-type")
    draft = args.take("-md", "--model-draft", "--spec-draft-model")
    n_max = args.take_int("--spec-draft-n-max", "--draft-max", "--draft-n", "--draft")
    size_n = args.take_int("--spec-ngram-size-n")
    speculation: dict[str, Any] = {"method": "none"}
    assets: list[dict[str, Any]] = []
    tokenizer: dict[str, Any] = {"name": model}
    sk.say("compatibility.tokenizer", "the GGUF carries its tokenizer: named after the model file; confirm")
    if kind is None and draft:
        kind = "draft-simple"
    if kind is not None and kind != "none":
        normalized = kind.replace("_", "-")
        params: dict[str, Any] = {}
        if normalized.startswith("ngram-"):
            method = "ngram"
            variant = normalized.removeprefix("ngram-")
            if variant not in ("simple", "mod", "cache", "map-k", "map-k4v"):
                raise import_error(f"--spec-type {kind} is not a known n-gram variant")
            if variant != "simple":
                params["ngram_variant"] = variant
            if size_n is not None:
                params["prompt_lookup_max"] = size_n
        elif normalized in ("draft-simple", "draft"):
            method = "draft_model"
        elif normalized == "eagle3":
            method = "eagle3"
        else:
            raise import_error(f"--spec-type {kind} has no contract method")
        speculation = {"method": method}
        if n_max is not None:
            speculation["num_speculative_tokens"] = n_max
        else:
            sk.say("speculation.num_speculative_tokens", "left out: the command uses llama-server's default")
        if params:
            speculation["params"] = params
        role = REQUIRED_ASSET.get(method)
        if role:
            if not draft:
                raise import_error(f"--spec-type {kind} needs a draft model (-md)")
            asset: dict[str, Any] = {"role": role, "name": draft}
            sk.say(
                f"assets[role={role}].revision", "llama-server loads a file: add the checkpoint's revision"
            )
            if role == "draft":
                asset["tokenizer"] = dict(tokenizer)
                sk.say(
                    f"assets[role={role}].tokenizer", "assumed to be the target's (llama.cpp refuses another)"
                )
            assets.append(asset)
    max_batch = args.take_int("--parallel", "-np")
    return sk.result(
        args,
        model=model,
        revision=None,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=None,
    )
