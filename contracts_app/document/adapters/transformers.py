"""Transformers runs in process: the route is a `generate()` call, not a server. `config`
holds the generate() kwargs (prompt_lookup_num_tokens, assistant_model,
assistant_early_exit, do_sample, …); `argv` is SpecPact's notation of that call
(`transformers-generate --model M key=value …`, flags spelled as `transformers chat`
takes them), which the worker's transformers engine reads and which imports back."""

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

ENGINE = "transformers"
PROGRAM = "transformers-generate"
_KWARGS = (
    "prompt_lookup_num_tokens",
    "max_matching_ngram_size",
    "assistant_model",
    "assistant_early_exit",
    "num_assistant_tokens",
    "tokenizer",
    "assistant_tokenizer",
    "do_sample",
)


def generate_kwargs(doc: ContractDocument) -> dict[str, Any]:
    spec, p = doc.speculation, doc.speculation.params
    kwargs: dict[str, Any] = {}
    if spec.method == "ngram":
        kwargs["prompt_lookup_num_tokens"] = spec.num_speculative_tokens
        if p and p.prompt_lookup_max is not None:
            kwargs["max_matching_ngram_size"] = p.prompt_lookup_max
    elif spec.method == "draft_model":
        draft = doc.asset("draft")
        if draft is not None:
            kwargs["assistant_model"] = draft.name
        kwargs["num_assistant_tokens"] = spec.num_speculative_tokens
        if p and p.heterogeneous_vocab and draft is not None and draft.tokenizer is not None:
            # Universal assisted decoding: generate() re-tokenizes between the two vocabularies.
            kwargs["tokenizer"] = doc.compatibility.tokenizer.name
            kwargs["assistant_tokenizer"] = draft.tokenizer.name
    elif spec.method == "early_exit":
        kwargs["assistant_early_exit"] = p.early_exit_layer if p else None
        kwargs["num_assistant_tokens"] = spec.num_speculative_tokens
    modes = set(doc.compatibility.decoding.modes)
    if modes == {"greedy"}:
        kwargs["do_sample"] = False
    elif modes == {"sampling"}:
        kwargs["do_sample"] = True
    return kwargs


def _flag_value(value: Any) -> str:
    return str(value)  # True/False/ints as `transformers chat` spells them


def render(doc: ContractDocument) -> RenderedConfig:
    target, tok = doc.target, doc.compatibility.tokenizer
    argv = [PROGRAM, "--model", target.model]
    if target.revision:
        argv += ["--revision", target.revision]
    if tok.name != target.model:
        argv += ["--tokenizer", tok.name]
    draft = doc.asset("draft")
    if doc.speculation.method == "draft_model" and draft is not None and draft.revision:
        argv += ["--assistant-revision", draft.revision]
    kwargs = generate_kwargs(doc)
    argv += [f"{key}={_flag_value(kwargs[key])}" for key in _KWARGS if key in kwargs]
    notes = common_notes(doc, "generate()")
    if "do_sample" not in kwargs:
        notes.append("greedy and sampling are both allowed: do_sample is set per request")
    notes.append(f"Transformers has no server: `{PROGRAM}` is SpecPact's notation of the generate() call")
    if doc.speculation.method != "none":
        notes.append("assisted generation runs one sequence at a time (batch size 1)")
    if doc.speculation.params and doc.speculation.params.prompt_lookup_min is not None:
        notes.append("generate() has no minimum n-gram size: prompt_lookup_min is not passed")
    return rendered(ENGINE, argv, kwargs, notes)


def _parse_value(raw: str) -> Any:
    if raw in ("True", "true"):
        return True
    if raw in ("False", "false"):
        return False
    try:
        return int(raw)
    except ValueError:
        return raw


def import_argv(argv: list[str]) -> ImportResult:
    args = Args(strip_program(argv, (PROGRAM,)))
    model = args.take("--model")
    if not model and args.positionals and "=" not in args.positionals[0]:
        model = args.positionals.pop(0)
    if not model:
        raise import_error(f"no model: expected `{PROGRAM} --model MODEL key=value …`")
    sk = Skeleton(ENGINE, "Transformers")
    revision = args.take("--revision")
    assistant_revision = args.take("--assistant-revision")
    kwargs: dict[str, Any] = {}
    for item in args.positionals:
        key, eq, value = item.partition("=")
        if not eq:
            sk.say("argv", f"unexpected argument {item!r}; ignored")
        elif key not in _KWARGS:
            sk.say("argv", f"generate() argument {key} is not part of a contract; ignored")
        else:
            kwargs[key] = _parse_value(value)
    tok_name = str(kwargs.get("tokenizer") or args.take("--tokenizer") or model)
    args.take("--tokenizer")
    tokenizer: dict[str, Any] = {"name": tok_name}
    if tok_name == model and revision:
        tokenizer["revision"] = revision
    speculation: dict[str, Any] = {"method": "none"}
    assets: list[dict[str, Any]] = []
    if "prompt_lookup_num_tokens" in kwargs:
        speculation = {"method": "ngram", "num_speculative_tokens": kwargs["prompt_lookup_num_tokens"]}
        if "max_matching_ngram_size" in kwargs:
            speculation["params"] = {"prompt_lookup_max": kwargs["max_matching_ngram_size"]}
    elif "assistant_model" in kwargs:
        speculation = {"method": "draft_model"}
        draft: dict[str, Any] = {"role": "draft", "name": str(kwargs["assistant_model"])}
        if assistant_revision:
            draft["revision"] = assistant_revision
        else:
            sk.say(
                "assets[role=draft].revision", "the command does not pin the assistant's revision: add one"
            )
        if "assistant_tokenizer" in kwargs:
            speculation["params"] = {"heterogeneous_vocab": True}
            draft["tokenizer"] = {"name": str(kwargs["assistant_tokenizer"])}
        else:
            draft["tokenizer"] = dict(tokenizer)
            sk.say("assets[role=draft].tokenizer", "assumed to be the target's: confirm")
        assets.append(draft)
    elif "assistant_early_exit" in kwargs:
        speculation = {"method": "early_exit", "params": {"early_exit_layer": kwargs["assistant_early_exit"]}}
    if "num_assistant_tokens" in kwargs and speculation["method"] in ("draft_model", "early_exit"):
        speculation["num_speculative_tokens"] = kwargs["num_assistant_tokens"]
    elif speculation["method"] in ("draft_model", "early_exit"):
        sk.say(
            "speculation.num_speculative_tokens", "left out: generate() adapts the assistant's token count"
        )
    modes = None
    if kwargs.get("do_sample") is True:
        modes = ["sampling"]
    elif kwargs.get("do_sample") is False:
        modes = ["greedy"]
    return sk.result(
        args,
        ignored=[],
        model=model,
        revision=revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        modes=modes,
        max_batch_size=1,
        max_concurrency=1,
    )
