"""Import of TensorRT-LLM command lines and the YAML file they name: `trtllm-serve MODEL
--extra_llm_api_options FILE.yaml` (or `--config FILE.yaml`, the same option in
tensorrt_llm/commands/serve.py), `trtllm-serve serve MODEL …`, `python -m
tensorrt_llm.commands.serve MODEL …`, inside `docker run … nvcr.io/nvidia/tensorrt-llm/release:TAG`.

The speculation is in the file, not on the command line: the caller hands the file's
content over by the name the command gives it (`files`). Each `speculative_config` key
becomes a contract field or an unresolved line (not part of a contract, renamed, or a
speculation setting the contract does not carry yet, named); only a method the format has
no name for refuses the import."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from ..engines import asset_role
from ..engines.release import ReleaseView
from ..engines.trtllm import DECODING_TYPE, KNOWLEDGE, SPECULATIVE_CONFIG
from ..errors import ContractError
from ..parsing import parse_document
from .base import Args, ImportResult, Skeleton, import_error
from .cmdline import Image, python_programs, unwrap
from .words import LEFT_OUT, judge, judge_leftovers, warn_if_moved

ENGINE = "trtllm"
# `trtllm-llmapi-launch trtllm-serve …` on Slurm-like systems (the deployment guides' note).
PROGRAMS = [
    *(
        (*launch, "trtllm-serve", *serve)
        for launch in ((), ("trtllm-llmapi-launch",))
        for serve in ((), ("serve",))
    ),
    *python_programs("tensorrt_llm.commands.serve"),
]
IMAGE = Image(
    re.compile(r"(^|/)nvidia/tensorrt-llm/release$"),
    re.compile(r"^v?(\d+\.\d+\.\d+(?:rc\d+)?(?:\.post\d+)?)$"),
    "TensorRT-LLM's NGC images are tagged <release>, e.g. nvcr.io/nvidia/tensorrt-llm/release:1.2.1",
)
_FLAGS = [f for f in KNOWLEDGE.features if f.kind == "flag"]
BARE = {s for f in _FLAGS if not f.takes_value for s in f.spellings}
VALUED = {s for f in _FLAGS if f.takes_value for s in f.spellings}
CONFIG_FLAGS = ("--config", "--extra_llm_api_options")
_KEYS_TAKEN = (
    DECODING_TYPE, "max_draft_len", "num_nextn_predict_layers", "speculative_model", "speculative_model_dir",
    "max_matching_ngram_size", "draft_len_schedule", "max_concurrency", "acceptance_rate_window_size",
    "acceptance_rate_threshold",
)  # fmt: skip


class _Skeleton(Skeleton):
    """A knob the contract cannot carry yet is an unresolved line, not a refusal of the
    whole import (issue 23 point 2): the line names it, so the reviewer sees what is lost."""

    def refuse(self, word: str, message: str) -> None:
        self.say("speculation", f"{word}: {message}: {LEFT_OUT}")

    def refuse_method(self, word: str, message: str) -> None:
        super().refuse(word, message)


def import_argv(argv: list[str] | str, engine_version: str | None, files: dict[str, str]) -> ImportResult:
    cmd = unwrap(argv, PROGRAMS, IMAGE, "TensorRT-LLM", engine_version)
    view = KNOWLEDGE.view(cmd.image_version)
    args = Args(cmd.words, BARE, VALUED)
    sk = _Skeleton(ENGINE, "TensorRT-LLM", cmd.image_version)
    judge(sk, view, cmd.env, "env")
    model = args.positionals.pop(0) if args.positionals else None
    if not model:
        raise import_error("no model: expected `trtllm-serve MODEL …`")
    revision = args.take("--revision")
    tok_name = args.take("--tokenizer") or model
    tokenizer: dict[str, Any] = {"name": tok_name}
    if tok_name == model and revision:
        tokenizer["revision"] = revision
    elif tok_name != model:
        sk.say("compatibility.tokenizer.revision", "trtllm-serve cannot pin the tokenizer revision: add one")
    max_batch = args.take_int("--max_batch_size")
    extra = _config_file(args, sk, view, files)
    spec_raw = extra.pop(SPECULATIVE_CONFIG, None)
    if "max_batch_size" in extra:  # the YAML overrides the command line (update_llm_args_with_extra_dict)
        max_batch = _int(extra.pop("max_batch_size"), "max_batch_size")
    for key, value in extra.items():
        sk.say("argv", f"YAML key {key}={value!r} is not part of a contract; ignored")
    if spec_raw is not None and not isinstance(spec_raw, dict):
        raise import_error(f"{SPECULATIVE_CONFIG} must be a mapping, got {type(spec_raw).__name__}")
    speculation, assets, off = speculation_of(spec_raw or {}, tokenizer, sk, view)
    judge_leftovers(sk, view, args)
    return sk.result(
        notes=cmd.notes,
        model=model,
        revision=revision,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=None,
        speculation_off_above=off,
    )


def _config_file(args: Args, sk: Skeleton, view: ReleaseView, files: dict[str, str]) -> dict[str, Any]:
    given = [f for f in CONFIG_FLAGS if args.given(f)]
    if not given:
        if files:
            sk.say("files", f"the command names no config file: {', '.join(sorted(files))} not read")
        return {}
    for flag in given:
        warn_if_moved(sk, view, flag, "flag", flag)
    path = args.take(*CONFIG_FLAGS)
    if not path:
        raise import_error(f"{given[0]} names no file")
    text = files.get(path)
    if text is None:
        by_base = {posixpath.basename(k): v for k, v in files.items()}
        text = by_base.get(posixpath.basename(path))
    if text is None and len(files) == 1:
        text = next(iter(files.values()))
    if text is None:
        raise import_error(
            f"the command reads its settings, speculation included, from {path}: give that file too "
            f"(specpact import --config-file {path} …; the API's `files`)"
        )
    try:
        data = parse_document(text, "yaml")
    except ContractError as exc:
        raise ContractError(f"{path} could not be read.", exc.errors) from None
    return dict(data)


def _int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise import_error(f"{key} takes a whole number, got {value!r}")
    return value


def speculation_of(
    config: dict[str, Any], tokenizer: dict[str, Any], sk: _Skeleton, view: ReleaseView
) -> tuple[dict[str, Any], list[dict[str, Any]], int | None]:
    if not config:
        return {"method": "none"}, [], None
    name = str(config.get(DECODING_TYPE, ""))
    feats = [f for f in KNOWLEDGE.features if f.kind == "method" and name in f.spellings]
    if not feats:
        sk.refuse_method(
            f"decoding_type {name or '(missing)'}", "not a TensorRT-LLM decoding type SpecPact knows"
        )
        return {"method": "none"}, [], None
    feat = feats[-1]
    if feat.method is None:
        sk.refuse_method(
            f"decoding_type {name}",
            "TensorRT-LLM runs it, but specpact/v1 has no such method (see the format README: out of scope)",
        )
        return {"method": "none"}, [], None
    if name != feat.name:
        sk.say(
            "speculation.method", f"decoding_type {name} is read as {feat.name} ({feat.note or feat.source})"
        )
    if feat not in list(view.features("method")):
        sk.say(
            "speculation.method", f"decoding_type {name} is not in {view.label}: name the release it runs on"
        )
    method = feat.method
    speculation: dict[str, Any] = {"method": method}
    tokens = config.get("max_draft_len", config.get("num_nextn_predict_layers"))
    if "num_nextn_predict_layers" in config:
        # MTPDecodingConfig._remap_deprecated_num_nextn_predict_layers: max_draft_len wins.
        why = "ignored: max_draft_len is given" if "max_draft_len" in config else "read as max_draft_len"
        sk.say("speculation.num_speculative_tokens", f"num_nextn_predict_layers is deprecated: {why}")
    if tokens is None:
        tokens = 1
        sk.say(
            "speculation.num_speculative_tokens",
            "placeholder 1: the YAML sets no max_draft_len (for MTP the engine reads it from the checkpoint)",
        )
    speculation["num_speculative_tokens"] = _int(tokens, "max_draft_len")
    params: dict[str, Any] = {}
    if feat.name == "PARD":
        params["parallel_drafting"] = True
    if "max_matching_ngram_size" in config and method == "ngram":
        params["prompt_lookup_max"] = _int(config["max_matching_ngram_size"], "max_matching_ngram_size")
    schedule = config.get("draft_len_schedule")
    if schedule:
        params["token_schedule"] = _schedule(schedule)
    if params:
        speculation["params"] = params
    cutoff = _cutoff(config, sk)
    if cutoff:
        speculation["acceptance_cutoff"] = cutoff
    for key in _KEYS_TAKEN:
        if key in config:
            warn_if_moved(sk, view, key, "key", f"{SPECULATIVE_CONFIG} key {key}")
    assets = _assets(config, method, tokenizer, sk)
    off = config.get("max_concurrency")
    rest = {k: v for k, v in config.items() if k not in _KEYS_TAKEN}
    if method != "ngram" and "max_matching_ngram_size" in config:
        rest["max_matching_ngram_size"] = config["max_matching_ngram_size"]
    judge(sk, view, {k: _text(v) for k, v in rest.items()}, "key", where=f"{SPECULATIVE_CONFIG} key ")
    return speculation, assets, _int(off, "max_concurrency") if off is not None else None


def _text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else repr(value)


def _schedule(schedule: Any) -> list[dict[str, Any]]:
    if not isinstance(schedule, dict) or not schedule:
        raise import_error(
            "draft_len_schedule takes a mapping of batch size to draft length, e.g. {4: 4, 8: 2}"
        )
    steps = []
    for batch, tokens in sorted(schedule.items(), key=lambda kv: int(kv[0])):
        steps.append(
            {"up_to_batch_size": _int(int(batch), "draft_len_schedule"), "num_speculative_tokens": tokens}
        )
    return steps


def _cutoff(config: dict[str, Any], sk: Skeleton) -> dict[str, Any] | None:
    window, rate = config.get("acceptance_rate_window_size"), config.get("acceptance_rate_threshold")
    if window is None and rate is None:
        return None
    if not window:
        sk.say(
            "speculation.acceptance_cutoff",
            "acceptance_rate_window_size is unset or 0: the engine's acceptance switch-off is disabled",
        )
        return None
    if rate is None:
        sk.say(
            "speculation.acceptance_cutoff", "acceptance_rate_window_size without acceptance_rate_threshold"
        )
        return None
    return {"window": _int(window, "acceptance_rate_window_size"), "min_rate": float(rate)}


def _assets(
    config: dict[str, Any], method: str, tokenizer: dict[str, Any], sk: Skeleton
) -> list[dict[str, Any]]:
    model = config.get("speculative_model", config.get("speculative_model_dir"))
    role = asset_role(method)
    if not model:
        return []
    if role is None:
        sk.say("assets", f"speculative_model {model!r} is not used by method {method}; ignored")
        return []
    asset: dict[str, Any] = {"role": role, "name": str(model)}
    sk.say(f"assets[role={role}].revision", "speculative_model takes no revision: add the one the route uses")
    if role == "draft":
        asset["tokenizer"] = dict(tokenizer)
        sk.say(
            f"assets[role={role}].tokenizer",
            "assumed to be the target's: a draft must share the target's tokenizer (speculative-decoding.md)",
        )
    return [asset]
