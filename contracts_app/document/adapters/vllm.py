"""vLLM: `vllm serve MODEL … --speculative-config '{…}'`. The JSON keys are vLLM's
`SpeculativeConfig` fields: method, model, revision, num_speculative_tokens,
prompt_lookup_min/max, disable_by_batch_size, use_heterogeneous_vocab."""

from __future__ import annotations

import json
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

ENGINE = "vllm"
_MTP_TYPES_SUFFIX = "_mtp"  # vLLM also accepts model-specific MTP names (deepseek_mtp, …)
_KNOWN_KEYS = {
    "method",
    "model",
    "revision",
    "num_speculative_tokens",
    "prompt_lookup_min",
    "prompt_lookup_max",
    "disable_by_batch_size",
    "use_heterogeneous_vocab",
    "num_speculative_tokens_per_batch_size",
}
_FLAGS = {"--trust-remote-code", "--enforce-eager", "--enable-prefix-caching", "--disable-log-requests"}


def speculative_config(doc: ContractDocument) -> dict[str, Any]:
    spec = doc.speculation
    if spec.method == "none":
        return {}
    config: dict[str, Any] = {"method": spec.method}
    role = REQUIRED_ASSET.get(spec.method)
    asset = doc.asset(role) if role else None
    if asset is not None:
        config["model"] = asset.name
        if asset.revision:
            config["revision"] = asset.revision
    config["num_speculative_tokens"] = spec.num_speculative_tokens
    p = spec.params
    if p is not None:
        if p.prompt_lookup_min is not None:
            config["prompt_lookup_min"] = p.prompt_lookup_min
        if p.prompt_lookup_max is not None:
            config["prompt_lookup_max"] = p.prompt_lookup_max
        if p.heterogeneous_vocab:
            config["use_heterogeneous_vocab"] = True
        if p.token_schedule:
            # vLLM wants inclusive (start, end, tokens) ranges; the contract lists upper ends.
            starts = [1] + [step.up_to_batch_size + 1 for step in p.token_schedule[:-1]]
            config["num_speculative_tokens_per_batch_size"] = [
                [start, step.up_to_batch_size, step.num_speculative_tokens]
                for start, step in zip(starts, p.token_schedule, strict=True)
            ]
    off = doc.compatibility.batching.speculation_off_above_batch_size
    if off is not None:
        config["disable_by_batch_size"] = off
    return config


def render(doc: ContractDocument) -> RenderedConfig:
    target, tok = doc.target, doc.compatibility.tokenizer
    argv = ["vllm", "serve", target.model]
    if target.revision:
        argv += ["--revision", target.revision]
    if tok.name != target.model:
        argv += ["--tokenizer", tok.name]
    if tok.revision and (tok.name != target.model or tok.revision != target.revision):
        argv += ["--tokenizer-revision", tok.revision]
    config = speculative_config(doc)
    if config:
        argv += ["--speculative-config", json.dumps(config)]
    argv += ["--max-num-seqs", str(doc.compatibility.batching.max_batch_size)]
    notes = common_notes(doc, "vLLM")
    notes.append(
        f"vLLM has no server-side concurrency cap: keep concurrency at or below "
        f"{doc.compatibility.max_concurrency} in front of it"
    )
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str]) -> ImportResult:
    rest = strip_program(
        argv, ("vllm", "serve", "python", "python3", "-m", "vllm.entrypoints.openai.api_server")
    )
    args = Args(rest, _FLAGS)
    model = args.take("--model") or (args.positionals.pop(0) if args.positionals else None)
    if not model:
        raise import_error("no model: expected `vllm serve MODEL …`")
    sk = Skeleton(ENGINE, "vLLM")
    revision = args.take("--revision")
    tok_name = args.take("--tokenizer") or model
    tok_revision = args.take("--tokenizer-revision") or (revision if tok_name == model else None)
    tokenizer: dict[str, Any] = {"name": tok_name}
    if tok_revision:
        tokenizer["revision"] = tok_revision
    elif tok_name != model:
        sk.say("compatibility.tokenizer.revision", "the command does not pin the tokenizer revision: add one")

    raw = args.take("--speculative-config")
    config: dict[str, Any] = {}
    if raw:
        try:
            config = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise import_error(f"--speculative-config is not valid JSON: {exc.msg}") from None
        if not isinstance(config, dict):
            raise import_error("--speculative-config must be a JSON object")
    speculation, assets, off = _speculation(config, tokenizer, sk)
    max_batch = args.take_int("--max-num-seqs")
    return sk.result(
        args,
        model=model,
        revision=revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=None,
        speculation_off_above=off,
    )


def _speculation(
    config: dict[str, Any], tokenizer: dict[str, Any], sk: Skeleton
) -> tuple[dict[str, Any], list[dict[str, Any]], int | None]:
    if not config:
        return {"method": "none"}, [], None
    method = config.get("method")
    if method is None:
        method = "draft_model" if config.get("model") else "ngram"
        sk.say("speculation.method", f"vLLM guesses the method from the model; assumed {method}: confirm")
    elif isinstance(method, str) and method.endswith(_MTP_TYPES_SUFFIX):
        method = "mtp"
    speculation: dict[str, Any] = {"method": method}
    if "num_speculative_tokens" in config:
        speculation["num_speculative_tokens"] = config["num_speculative_tokens"]
    params: dict[str, Any] = {}
    for key in ("prompt_lookup_min", "prompt_lookup_max"):
        if key in config:
            params[key] = config[key]
    if config.get("use_heterogeneous_vocab"):
        params["heterogeneous_vocab"] = True
    schedule = config.get("num_speculative_tokens_per_batch_size")
    if isinstance(schedule, list) and schedule:
        params["token_schedule"] = _schedule(schedule, sk)
    if params:
        speculation["params"] = params
    assets: list[dict[str, Any]] = []
    role = REQUIRED_ASSET.get(str(method))
    if config.get("model"):
        if role is None:
            sk.say("assets", f"speculative model {config['model']!r} is not used by method {method}; ignored")
        else:
            asset: dict[str, Any] = {"role": role, "name": config["model"]}
            if config.get("revision"):
                asset["revision"] = config["revision"]
            else:
                sk.say(
                    f"assets[role={role}].revision",
                    "the command does not pin the checkpoint revision: add one",
                )
            if role == "draft":
                if params.get("heterogeneous_vocab"):
                    asset["tokenizer"] = {"name": config["model"]}
                    sk.say(
                        f"assets[role={role}].tokenizer", "assumed to be the draft's own tokenizer: confirm"
                    )
                else:
                    asset["tokenizer"] = dict(tokenizer)
                    sk.say(
                        f"assets[role={role}].tokenizer",
                        "assumed to be the target's: vLLM refuses another vocabulary "
                        "without use_heterogeneous_vocab",
                    )
            assets.append(asset)
    for key in sorted(set(config) - _KNOWN_KEYS):
        sk.say("argv", f"--speculative-config key {key} is not part of a contract; ignored")
    off = config.get("disable_by_batch_size")
    return speculation, assets, off if isinstance(off, int) else None


def _schedule(ranges: list[Any], sk: Skeleton) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    expected_start = 1
    for item in ranges:
        if not (isinstance(item, list | tuple) and len(item) == 3):
            raise import_error("num_speculative_tokens_per_batch_size takes [start, end, tokens] ranges")
        start, end, tokens = item
        if start != expected_start:
            sk.say(
                "speculation.params.token_schedule",
                f"the range starting at {start} leaves a gap or overlap: the contract lists contiguous steps",
            )
        steps.append({"up_to_batch_size": end, "num_speculative_tokens": tokens})
        expected_start = end + 1 if isinstance(end, int) else expected_start
    return steps
