"""SGLang: `python -m sglang.launch_server --model-path … --speculative-algorithm …`.
EAGLE-style algorithms (EAGLE, EAGLE3, NEXTN for MTP, STANDALONE for a draft model) draft
`--speculative-num-steps` tokens in a tree of `--speculative-eagle-topk` branches and
verify `--speculative-num-draft-tokens`; a chain (topk 1) verifies steps + 1."""

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

ENGINE = "sglang"
ALGORITHMS = {
    "eagle": "EAGLE",
    "eagle3": "EAGLE3",
    "mtp": "NEXTN",
    "draft_model": "STANDALONE",
    "ngram": "NGRAM",
}
_METHODS = {v: k for k, v in ALGORITHMS.items()}
_FLAGS = {"--trust-remote-code", "--enable-torch-compile", "--disable-radix-cache", "--enable-dp-attention"}


def render(doc: ContractDocument) -> RenderedConfig:
    spec, target, tok = doc.speculation, doc.target, doc.compatibility.tokenizer
    argv = ["python", "-m", "sglang.launch_server", "--model-path", target.model]
    if target.revision:
        argv += ["--revision", target.revision]
    if tok.name != target.model:
        argv += ["--tokenizer-path", tok.name]
    config: dict[str, Any] = {}
    notes = common_notes(doc, "SGLang")
    if spec.method != "none":
        n = spec.num_speculative_tokens or 1
        p = spec.params
        config["speculative_algorithm"] = ALGORITHMS[spec.method]
        role = REQUIRED_ASSET.get(spec.method)
        asset = doc.asset(role) if role else None
        if asset is not None:
            config["speculative_draft_model_path"] = asset.name
            if asset.revision:
                config["speculative_draft_model_revision"] = asset.revision
        if spec.method == "ngram":
            config["speculative_num_draft_tokens"] = n
            if p and p.prompt_lookup_min is not None:
                config["speculative_ngram_min_match_window_size"] = p.prompt_lookup_min
            if p and p.prompt_lookup_max is not None:
                config["speculative_ngram_max_match_window_size"] = p.prompt_lookup_max
            notes.append("SGLang's n-gram speculation runs on CUDA GPUs only")
        else:
            topk = p.eagle_topk if p and p.eagle_topk else 1
            config["speculative_num_steps"] = n
            config["speculative_eagle_topk"] = topk
            config["speculative_num_draft_tokens"] = p.num_draft_tokens if p and p.num_draft_tokens else n + 1
        for key, value in config.items():
            argv += ["--" + key.replace("_", "-"), str(value)]
    argv += ["--max-running-requests", str(doc.compatibility.batching.max_batch_size)]
    if doc.compatibility.batching.speculation_off_above_batch_size is not None:
        notes.append("SGLang cannot switch speculation off by batch size: the route must enforce it")
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str]) -> ImportResult:
    rest = strip_program(argv, ("python", "python3", "-m", "sglang.launch_server"))
    if rest[:1] == ["sglang"] or rest[:2] == ["sglang", "serve"]:
        rest = strip_program(rest, ("sglang", "serve"))
    args = Args(rest, _FLAGS)
    model = args.take("--model-path", "--model")
    if not model:
        raise import_error("no model: expected `python -m sglang.launch_server --model-path MODEL …`")
    sk = Skeleton(ENGINE, "SGLang")
    revision = args.take("--revision")
    tok_name = args.take("--tokenizer-path") or model
    tokenizer: dict[str, Any] = {"name": tok_name}
    if tok_name == model and revision:
        tokenizer["revision"] = revision
    elif tok_name != model:
        sk.say("compatibility.tokenizer.revision", "the command does not pin the tokenizer revision: add one")
    algorithm = args.take("--speculative-algorithm", "--speculative-algo")
    draft_path = args.take("--speculative-draft-model-path", "--speculative-draft")
    draft_revision = args.take("--speculative-draft-model-revision")
    steps = args.take_int("--speculative-num-steps")
    topk = args.take_int("--speculative-eagle-topk")
    draft_tokens = args.take_int("--speculative-num-draft-tokens")
    window_min = args.take_int("--speculative-ngram-min-match-window-size")
    window_max = args.take_int("--speculative-ngram-max-match-window-size")
    speculation: dict[str, Any] = {"method": "none"}
    assets: list[dict[str, Any]] = []
    if algorithm:
        upper = algorithm.upper()
        if upper == "EAGLE" and not draft_path:
            upper = "NEXTN"
            sk.say(
                "speculation.method",
                "EAGLE without a draft path uses the model's own MTP layers: read as mtp",
            )
        if upper not in _METHODS:
            raise import_error(f"--speculative-algorithm {algorithm} has no contract method")
        method = _METHODS[upper]
        speculation = {"method": method}
        params: dict[str, Any] = {}
        if method == "ngram":
            if draft_tokens is not None:
                speculation["num_speculative_tokens"] = draft_tokens
            if window_min is not None:
                params["prompt_lookup_min"] = window_min
            if window_max is not None:
                params["prompt_lookup_max"] = window_max
        else:
            if steps is not None:
                speculation["num_speculative_tokens"] = steps
            if topk is not None and topk != 1:
                params["eagle_topk"] = topk
            if draft_tokens is not None and (steps is None or draft_tokens != steps + 1 or (topk or 1) != 1):
                params["num_draft_tokens"] = draft_tokens
        if params:
            speculation["params"] = params
        role = REQUIRED_ASSET.get(method)
        if role and draft_path:
            asset: dict[str, Any] = {"role": role, "name": draft_path}
            if draft_revision:
                asset["revision"] = draft_revision
            else:
                sk.say(
                    f"assets[role={role}].revision",
                    "the command does not pin the checkpoint revision: add one",
                )
            if role == "draft":
                asset["tokenizer"] = dict(tokenizer)
                sk.say(f"assets[role={role}].tokenizer", "assumed to be the target's: confirm")
            assets.append(asset)
    max_batch = args.take_int("--max-running-requests")
    return sk.result(
        args,
        model=model,
        revision=revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=None,
    )
