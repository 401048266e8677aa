"""SGLang: `python -m sglang.launch_server --model-path … --speculative-algorithm …`.
EAGLE-style algorithms (EAGLE, EAGLE3, NEXTN for MTP, STANDALONE for a draft model) draft
`--speculative-num-steps` tokens in a tree of `--speculative-eagle-topk` branches and
verify `--speculative-num-draft-tokens`; a chain (topk 1) verifies steps + 1. NGRAM takes
`--speculative-num-draft-tokens`; its match-window flags exist up to 0.5.9 only."""

from __future__ import annotations

import re
from typing import Any

from ..engines import asset_role
from ..engines.sglang import KNOWLEDGE
from ..engines.verifiers import SPELLINGS
from ..rules_release import view_of
from ..schema import ContractDocument
from ..verification import spelling_of
from .base import Args, ImportResult, RenderedConfig, Skeleton, common_notes, import_error, rendered
from .cmdline import Image, python_programs, unwrap
from .dating import newest_read, upgrade
from .params_render import flag_config, flag_words
from .words import dated, judge, judge_leftovers, warn_if_moved

ENGINE = "sglang"
PROGRAMS = [*python_programs("sglang.launch_server"), ("sglang", "serve")]
IMAGE = Image(
    re.compile(r"(^|/)lmsysorg/sglang$"),
    re.compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+)?)"),
    "SGLang's images are tagged v<release>[-cuda], e.g. lmsysorg/sglang:v0.5.10-cu129",
)
_BARE = {f.name for f in KNOWLEDGE.features if f.kind == "flag" and not f.takes_value} | {
    "--trust-remote-code", "--enable-torch-compile", "--disable-radix-cache", "--enable-dp-attention",
    "--skip-server-warmup", "--disable-cuda-graph", "--enable-mixed-chunk", "--disable-overlap-schedule",
}  # fmt: skip
_VALUED = {s for f in KNOWLEDGE.features if f.kind == "flag" and f.takes_value for s in f.spellings}


def render(doc: ContractDocument) -> RenderedConfig:
    spec, target, tok, view = doc.speculation, doc.target, doc.compatibility.tokenizer, view_of(doc)
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
        feature = view.method(spec.method)
        config["speculative_algorithm"] = feature.name if feature else spec.method.upper()
        role = asset_role(spec.method)
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
        elif spec.method == "dflash":
            # --speculative-dflash-block-size is an alias of --speculative-num-draft-tokens: the
            # verify window, the anchor plus n drafted tokens (arg_groups/fields/spec.py, 0.5.23).
            config["speculative_num_draft_tokens"] = n + 1
        elif spec.method == "dspark":
            config["speculative_dspark_block_size"] = n  # gamma; the verify window is gamma + 1
        else:
            topk = p.eagle_topk if p and p.eagle_topk else 1
            config["speculative_num_steps"] = n
            config["speculative_eagle_topk"] = topk
            config["speculative_num_draft_tokens"] = p.num_draft_tokens if p and p.num_draft_tokens else n + 1
        for key, value in config.items():
            argv += ["--" + key.replace("_", "-"), str(value)]
        argv += flag_words(doc, view)
        config.update(flag_config(doc, view))
        verifier = spelling_of(doc)
        if verifier is not None:
            config[verifier.name.lstrip("-").replace("-", "_")] = True
            argv.append(verifier.name)
    argv += ["--max-running-requests", str(doc.compatibility.batching.max_batch_size)]
    # The worker reads sglang:spec_accept_length/_rate from /metrics (and /server_info).
    argv.append("--enable-metrics")
    if doc.compatibility.batching.speculation_off_above_batch_size is not None:
        notes.append("SGLang cannot switch speculation off by batch size: the route must enforce it")
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str] | str, engine_version: str | None = None) -> ImportResult:
    cmd = unwrap(argv, PROGRAMS, IMAGE, "SGLang", engine_version)
    view = KNOWLEDGE.view(cmd.image_version)
    args = Args(cmd.words, _BARE, _VALUED)
    # A command dated by its flags is read, and recorded, as the release it was written for.
    view, said = dated(view, list(args.options), "flag")
    sk = Skeleton(ENGINE, "SGLang", newest_read(view) if said else cmd.image_version)
    for i, message in enumerate(said):
        sk.say("argv" if i else "target.engine_version", message)
    judge(sk, view, cmd.env, "env")
    model = args.take("--model-path", "--model")
    if not model:
        raise import_error("no model: expected `python -m sglang.launch_server --model-path MODEL …`")
    revision = args.take("--revision")
    tok_name = args.take("--tokenizer-path") or model
    tokenizer: dict[str, Any] = {"name": tok_name}
    if tok_name == model and revision:
        tokenizer["revision"] = revision
    elif tok_name != model:
        sk.say("compatibility.tokenizer.revision", "the command does not pin the tokenizer revision: add one")
    speculation, assets = _speculation(args, tokenizer, sk, view)
    max_batch = args.take_int("--max-running-requests")
    judge_leftovers(sk, view, args)
    result = sk.result(
        notes=cmd.notes,
        model=model,
        revision=revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=None,
    )
    if said:
        result.unresolved += upgrade(result.document, view)
    return result


def _speculation(
    args: Args, tokenizer: dict[str, Any], sk: Skeleton, view: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    for name in (
        "--speculative-draft-model",
        "--speculative-ngram-min-match-window-size",
        "--speculative-ngram-max-match-window-size",
        "--speculative-draft-model-revision",
    ):
        if args.given(name):
            warn_if_moved(sk, view, name, "flag", args.spelled.get(name, name))
    algorithm = args.take("--speculative-algorithm")
    draft_path = args.take("--speculative-draft-model-path", "--speculative-draft-model")
    draft_revision = args.take("--speculative-draft-model-revision")
    steps = args.take_int("--speculative-num-steps")
    topk = args.take_int("--speculative-eagle-topk")
    draft_tokens = args.take_int("--speculative-num-draft-tokens")
    window_min = args.take_int("--speculative-ngram-min-match-window-size")
    window_max = args.take_int("--speculative-ngram-max-match-window-size")
    gamma = args.take_int("--speculative-dspark-block-size")
    verifier = next((s.verifier for s in SPELLINGS if s.engine == ENGINE and args.take_flag(s.name)), None)
    if not algorithm:
        if draft_path or steps or draft_tokens:
            sk.say(
                "speculation.method",
                "speculative flags without --speculative-algorithm: SGLang does not "
                "speculate; read as method none",
            )
        return {"method": "none"}, []
    upper = algorithm.upper()
    if upper == "EAGLE" and not draft_path:
        upper = "NEXTN"
        sk.say(
            "speculation.method", "EAGLE without a draft path uses the model's own MTP layers: read as mtp"
        )
    feats = [f for f in KNOWLEDGE.features if f.kind == "method" and f.name == upper]
    if not feats:
        raise import_error(f"--speculative-algorithm {algorithm} has no contract method")
    method = feats[-1].method
    if method is None:
        sk.refuse(
            f"--speculative-algorithm {algorithm}",
            "SGLang runs it, but specpact/v1 has no such method "
            "(see the format README: methods out of scope)",
        )
        return {"method": "none"}, []
    speculation: dict[str, Any] = {"method": method}
    params: dict[str, Any] = {}
    if verifier is not None:
        speculation["verifier"] = verifier
    if method == "dspark" and gamma is not None:
        speculation["num_speculative_tokens"] = gamma
    elif method == "dflash" and draft_tokens is not None:
        speculation["num_speculative_tokens"] = draft_tokens - 1  # the verify window holds the anchor
    elif method == "ngram":
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
    assets: list[dict[str, Any]] = []
    role = asset_role(method)
    if role and draft_path:
        asset: dict[str, Any] = {"role": role, "name": draft_path}
        if draft_revision:
            asset["revision"] = draft_revision
        else:
            sk.say(
                f"assets[role={role}].revision", "the command does not pin the checkpoint revision: add one"
            )
        if role == "draft":
            asset["tokenizer"] = dict(tokenizer)
            sk.say(f"assets[role={role}].tokenizer", "assumed to be the target's: confirm")
        assets.append(asset)
    elif draft_path:
        sk.say("assets", f"draft path {draft_path!r} is not used by {algorithm}; ignored")
    return speculation, assets
