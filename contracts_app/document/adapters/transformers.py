"""Transformers runs in process: the route is a `generate()` call, not a server. `config`
holds the generate() kwargs (prompt_lookup_num_tokens, assistant_model, assistant_early_exit,
use_mtp, do_sample, …); `argv` is SpecPact's notation of that call (`transformers-generate
--model M key=value …`), which the worker's transformers engine reads and which imports
back. A `model.generate(...)` call pasted as Python imports too (transformers_python)."""

from __future__ import annotations

from typing import Any

from ..engines.transformers import KNOWLEDGE
from ..schema import ContractDocument
from .base import Args, ImportResult, RenderedConfig, Skeleton, common_notes, import_error, rendered
from .cmdline import split_words, strip_program
from .transformers_python import Loaded, looks_like_python, parse_generate
from .words import judge

ENGINE = "transformers"
PROGRAM = "transformers-generate"
_KWARGS = (
    "prompt_lookup_num_tokens",
    "max_matching_ngram_size",
    "assistant_model",
    "assistant_early_exit",
    "use_mtp",
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
    elif spec.method == "mtp":
        assistant = doc.asset("mtp_assistant")
        if assistant is not None:  # a Gemma 4 assistant (SinglePositionMultiTokenCandidateGenerator)
            kwargs["assistant_model"] = assistant.name
            kwargs["num_assistant_tokens"] = spec.num_speculative_tokens
        else:
            kwargs["use_mtp"] = True
    modes = set(doc.compatibility.decoding.modes)
    if modes == {"greedy"}:
        kwargs["do_sample"] = False
    elif modes == {"sampling"}:
        kwargs["do_sample"] = True
    return kwargs


def render(doc: ContractDocument) -> RenderedConfig:
    target, tok = doc.target, doc.compatibility.tokenizer
    argv = [PROGRAM, "--model", target.model]
    if target.revision:
        argv += ["--revision", target.revision]
    if tok.name != target.model:
        argv += ["--tokenizer", tok.name]
    helper = doc.asset("draft") or doc.asset("mtp_assistant")
    if doc.speculation.method in ("draft_model", "mtp") and helper is not None and helper.revision:
        argv += ["--assistant-revision", helper.revision]
    if doc.speculation.method == "mtp":
        # SpecPact's notation only: generate() is not told these (it reads the assistant's
        # class, or the model's num_mtp_layers), the contract states them.
        if doc.asset("mtp_assistant") is not None:
            argv += ["--assistant-role", "mtp_assistant"]
        else:
            argv += ["--mtp-layers", str(doc.speculation.num_speculative_tokens)]
    kwargs = generate_kwargs(doc)
    argv += [f"{key}={kwargs[key]}" for key in _KWARGS if key in kwargs]
    notes = common_notes(doc, "generate()")
    if "do_sample" not in kwargs:
        notes.append("greedy and sampling are both allowed: do_sample is set per request")
    notes.append(f"Transformers has no server: `{PROGRAM}` is SpecPact's notation of the generate() call")
    if doc.speculation.method != "none":
        notes.append("assisted generation runs one sequence at a time (batch size 1)")
    if kwargs.get("use_mtp"):
        notes.append("use_mtp drafts as many tokens as the model has MTP layers (num_mtp_layers)")
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


def import_argv(argv: list[str] | str, engine_version: str | None = None) -> ImportResult:
    text = argv if isinstance(argv, str) else (argv[0] if len(argv) == 1 else " ".join(argv))
    if looks_like_python(text) and not text.lstrip().startswith(PROGRAM):
        return _import_python(text, engine_version)
    args = Args(strip_program(split_words(argv), [(PROGRAM,)]))
    model = args.take("--model")
    if not model and args.positionals and "=" not in args.positionals[0]:
        model = args.positionals.pop(0)
    if not model:
        raise import_error(
            f"no model: expected `{PROGRAM} --model MODEL key=value …` or a pasted generate() call"
        )
    revision = args.take("--revision")
    assistant_revision = args.take("--assistant-revision")
    tokenizer_flag = args.take("--tokenizer")
    role = args.take("--assistant-role")
    mtp_layers = args.take_int("--mtp-layers")
    kwargs: dict[str, Any] = {}
    for item in args.positionals:
        key, eq, value = item.partition("=")
        if eq:
            kwargs[key] = _parse_value(value)
    sk = Skeleton(ENGINE, "Transformers", engine_version)
    for item in args.positionals:
        if "=" not in item:
            sk.say("argv", f"unexpected argument {item!r}; ignored")
    judge(sk, KNOWLEDGE.view(engine_version), dict(args.options), "flag", spelled=args.spelled)
    if tokenizer_flag and "tokenizer" not in kwargs:
        kwargs["tokenizer"] = tokenizer_flag
    if role == "mtp_assistant":
        kwargs["__mtp_assistant__"] = True
    if mtp_layers is not None:
        kwargs["__mtp_layers__"] = mtp_layers
    return _document(sk, model, revision, kwargs, assistant_revision)


def _import_python(text: str, engine_version: str | None = None) -> ImportResult:
    call = parse_generate(text)
    if call.model is None:
        raise import_error(
            "which model generate() is called on cannot be read from the paste: include the line that "
            'loads it (model = AutoModelForCausalLM.from_pretrained("...")), or use '
            f"`{PROGRAM} --model MODEL key=value …`"
        )
    sk = Skeleton(ENGINE, "Transformers", engine_version)
    for expr in call.unpacked:
        sk.say("argv", f"generate() input {expr} (the prompt) is not part of a contract")
    kwargs: dict[str, Any] = {}
    assistant_revision = None
    for key, value in call.kwargs.items():
        if isinstance(value, Loaded):
            if key == "assistant_model":
                assistant_revision = value.revision
            value = value.repo
        kwargs[key] = value
    return _document(sk, call.model.repo, call.model.revision, kwargs, assistant_revision)


def _document(
    sk: Skeleton, model: str, revision: str | None, kwargs: dict[str, Any], assistant_revision: str | None
) -> ImportResult:
    view = view_of_version(sk.engine_version)
    taken = {k: kwargs.pop(k) for k in list(kwargs) if k in _KWARGS or k.startswith("__")}
    rest = {k: (None if v is True else str(v)) for k, v in kwargs.items()}
    _judge_kwargs(sk, view, rest)
    tok_name = str(taken.get("tokenizer") or model)
    tokenizer: dict[str, Any] = {"name": tok_name}
    if tok_name == model and revision:
        tokenizer["revision"] = revision
    speculation, assets = _speculation(sk, taken, tokenizer, assistant_revision)
    sample = taken.get("do_sample")
    modes = ["sampling"] if sample is True else ["greedy"] if sample is False else None
    return sk.result(
        model=model,
        revision=revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        modes=modes,
        max_batch_size=1,
        max_concurrency=1,
    )


def view_of_version(version: str | None) -> Any:
    return KNOWLEDGE.view(version)


def _judge_kwargs(sk: Skeleton, view: Any, rest: dict[str, str | None]) -> None:
    known = {f.name for f in KNOWLEDGE.features if f.kind == "key"}
    methods = {f.name for f in KNOWLEDGE.features if f.kind == "method" and f.method is None}
    judge(sk, view, {k: v for k, v in rest.items() if k in known}, "key", where="generate() argument ")
    for key, value in rest.items():
        if key not in known:
            shown = key if value is None else f"{key}={value}"
            if key in methods:  # a method the format does not hold (speculation_type='dflash')
                sk.refuse(
                    f"generate() argument {shown}",
                    "Transformers runs it, but specpact/v1 has no such method (see the format README: "
                    "methods out of scope)",
                )
            elif key.startswith(("assistant", "prompt_lookup", "num_assistant", "speculat")):
                sk.say(
                    "argv",
                    f"generate() argument {shown}: a speculation setting SpecPact does not know: left out "
                    "of the contract, review it",
                )
            else:
                sk.say("argv", f"generate() argument {shown} is set per request: not part of a contract")


def _speculation(
    sk: Skeleton, kwargs: dict[str, Any], tokenizer: dict[str, Any], assistant_revision: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    speculation: dict[str, Any] = {"method": "none"}
    assets: list[dict[str, Any]] = []
    if "assistant_early_exit" in kwargs:  # generate() checks early exit first, then prompt lookup
        speculation = {"method": "early_exit", "params": {"early_exit_layer": kwargs["assistant_early_exit"]}}
        if "prompt_lookup_num_tokens" in kwargs or "assistant_model" in kwargs:
            sk.say(
                "speculation.method", "generate() runs early exit and ignores the other speculation arguments"
            )
    elif "prompt_lookup_num_tokens" in kwargs:
        speculation = {"method": "ngram", "num_speculative_tokens": kwargs["prompt_lookup_num_tokens"]}
        if "max_matching_ngram_size" in kwargs:
            speculation["params"] = {"prompt_lookup_max": kwargs["max_matching_ngram_size"]}
        if "assistant_model" in kwargs:
            sk.say(
                "assets", "generate() runs prompt lookup and ignores assistant_model (generation/utils.py)"
            )
    elif kwargs.get("use_mtp"):
        speculation = {"method": "mtp"}
        if "__mtp_layers__" in kwargs:
            speculation["num_speculative_tokens"] = kwargs["__mtp_layers__"]
    elif "assistant_model" in kwargs and kwargs.get("__mtp_assistant__"):
        speculation = {"method": "mtp"}
        helper: dict[str, Any] = {"role": "mtp_assistant", "name": str(kwargs["assistant_model"])}
        if assistant_revision:
            helper["revision"] = assistant_revision
        assets.append(helper)
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
        if "assistant" in draft["name"].lower():
            sk.say(
                "speculation.method",
                "an assistant checkpoint (e.g. a Gemma 4 assistant) runs MTP: if so, "
                "the method is mtp with an mtp_assistant asset",
            )
        assets.append(draft)
    method = speculation["method"]
    if "num_assistant_tokens" in kwargs and (
        method in ("draft_model", "early_exit") or (assets and method == "mtp")
    ):
        speculation["num_speculative_tokens"] = kwargs["num_assistant_tokens"]
    elif method in ("draft_model", "early_exit"):
        sk.say(
            "speculation.num_speculative_tokens",
            "left out: generate() uses the assistant's "
            "num_assistant_tokens (20 in generation/configuration_utils.py)",
        )
    elif method == "mtp" and "num_speculative_tokens" not in speculation:
        sk.say(
            "speculation.num_speculative_tokens",
            "left out: use_mtp drafts one token per MTP layer of the model",
        )
    return speculation, assets
