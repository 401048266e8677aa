"""Import of vLLM command lines as people paste them: `vllm serve MODEL …`, `python -m
vllm.entrypoints.openai.api_server --model MODEL …`, in `docker run … vllm/vllm-openai:vX`;
`--speculative-config` or `--speculative_config` (vLLM's parser treats `_` as `-`), `-sc`,
`--speculative-config.KEY VALUE`, and the flags it replaced in 0.8.3 (vllm-project/vllm#15466)."""

from __future__ import annotations

import json
import re
from typing import Any

from ..engines import asset_role
from ..engines.release import ReleaseView
from ..engines.verifiers import LOSSY, by_word
from ..engines.vllm import KNOWLEDGE
from .base import Args, ImportResult, Skeleton, import_error
from .cmdline import Image, python_programs, unwrap
from .dating import batch_cutoff
from .words import judge, judge_leftovers, warn_if_moved

ENGINE = "vllm"
PROGRAMS = [("vllm", "serve"), *python_programs("vllm.entrypoints.openai.api_server")]
IMAGE = Image(
    re.compile(r"(^|/)vllm-openai(-[a-z0-9]+)?$"),
    re.compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+)?)"),
    "vLLM's images are tagged v<release>, e.g. vllm/vllm-openai:v0.24.0",
)
_LEGACY = [f for f in KNOWLEDGE.features if f.kind == "flag" and f.until == "0.8.3"]
VALUED = {
    "--speculative-config", "-sc", "--model", "--revision", "--tokenizer", "--tokenizer-revision",
    "--max-num-seqs", "--host", "--port", "--dtype", "--max-model-len", "--gpu-memory-utilization",
    "--tensor-parallel-size", "-tp", "--pipeline-parallel-size", "-pp", "--seed", "--quantization", "-q",
    "--max-num-batched-tokens", "--swap-space", "--served-model-name", "--rope-scaling", "--chat-template",
    "--tool-call-parser", "--reasoning-parser", "--kv-cache-dtype", "--load-format", "--download-dir",
    *(f.name for f in _LEGACY),
}  # fmt: skip
BARE = {"--trust-remote-code", "--enforce-eager", "--use-v2-block-manager", "--enable-auto-tool-choice"}
_KEYS_TAKEN = (
    "method", "model", "revision", "num_speculative_tokens", "prompt_lookup_min", "prompt_lookup_max",
    "disable_by_batch_size", "use_heterogeneous_vocab", "num_speculative_tokens_per_batch_size",
    "parallel_drafting", "synthetic_acceptance_length",
)  # fmt: skip


def normalize(name: str) -> str:
    """vLLM's FlexibleArgumentParser: underscores to dashes up to the first '.'."""
    if not name.startswith("--"):
        return name
    head, dot, rest = name[2:].partition(".")
    return "--" + head.replace("_", "-") + dot + rest


def _bare(args_words: list[str]) -> set[str]:
    """Boolean options (argparse BooleanOptionalAction: --enable-x, --no-enable-x, --disable-x)."""
    bare = set(BARE)
    for word in args_words:
        name = normalize(word.partition("=")[0])
        if name.startswith(("--enable-", "--disable-", "--no-")):
            bare.add(name)
    return bare


def import_argv(argv: list[str] | str, engine_version: str | None = None) -> ImportResult:
    cmd = unwrap(argv, PROGRAMS, IMAGE, "vLLM", engine_version)
    view = KNOWLEDGE.view(cmd.image_version)
    args = Args(cmd.words, _bare(cmd.words), VALUED, normalize)
    sk = Skeleton(ENGINE, "vLLM", cmd.image_version)
    judge(sk, view, cmd.env, "env")
    model = args.take("--model") or (args.positionals.pop(0) if args.positionals else None)
    if not model:
        raise import_error("no model: expected `vllm serve MODEL …`")
    revision = args.take("--revision")
    tok_name = args.take("--tokenizer") or model
    tok_revision = args.take("--tokenizer-revision") or (revision if tok_name == model else None)
    tokenizer: dict[str, Any] = {"name": tok_name}
    if tok_revision:
        tokenizer["revision"] = tok_revision
    elif tok_name != model:
        sk.say("compatibility.tokenizer.revision", "the command does not pin the tokenizer revision: add one")
    config = _config(args, sk, view)
    speculation, assets, off = speculation_of(config, tokenizer, sk, view)
    max_batch = args.take_int("--max-num-seqs")
    off = batch_cutoff(speculation, off, max_batch, view, sk)
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


def _value(raw: str | None) -> Any:
    if raw is None:
        return True
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _config(args: Args, sk: Skeleton, view: ReleaseView) -> dict[str, Any]:
    if args.given("-sc"):
        warn_if_moved(sk, view, "-sc", "flag", "-sc")
    raw = args.take("--speculative-config", "-sc")
    config: dict[str, Any] = {}
    if raw:
        try:
            config = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise import_error(f"--speculative-config is not valid JSON: {exc.msg}") from None
        if not isinstance(config, dict):
            raise import_error("--speculative-config must be a JSON object")
    for name in [n for n in args.options if n.startswith("--speculative-config.")]:
        config[name.split(".", 1)[1]] = _value(args.take(name))
    for feat in _LEGACY:
        if args.given(feat.name):
            shown = args.spelled.get(feat.name, feat.name)
            value = args.take(feat.name)
            sk.say(
                "argv",
                f"{shown} was removed in vLLM 0.8.3 (vllm-project/vllm#15466): it is "
                f"{feat.replaced_by}; imported as that key",
            )
            config.setdefault(str(feat.concept), _value(value))
    return config


def infer_method(model: str | None) -> tuple[str, str]:
    """vLLM's own inference when `method` is missing (SpeculativeConfig.__post_init__)."""
    name = (model or "").lower()
    if model in ("ngram", "[ngram]"):
        return "ngram", f"model {model!r} means ngram"
    if model and "/" not in model and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", model):
        return "custom_class", f"{model!r} is a dotted import path: custom_class"
    for needle, method in (
        ("eagle-", "eagle"),
        ("eagle3", "eagle3"),
        ("dflash", "dflash"),
        ("dspark", "dspark"),
    ):
        if needle in name:
            return method, f"the draft's name contains {needle!r}: {method}"
    return "draft_model", (
        "read as draft_model; vLLM decides from the draft's config, which may make it medusa, "
        "mlp_speculator or an MTP model type instead"
    )


def speculation_of(
    config: dict[str, Any], tokenizer: dict[str, Any], sk: Skeleton, view: ReleaseView
) -> tuple[dict[str, Any], list[dict[str, Any]], int | None]:
    if not config:
        return {"method": "none"}, [], None
    name = config.get("method")
    model = config.get("model")
    if name is None:
        name, why = infer_method(model)
        sk.say("speculation.method", f"--speculative-config names no method; vLLM infers it: {why}; confirm")
    name = "ngram" if name == "[ngram]" else str(name)
    if name.endswith("_mtp"):
        sk.say(
            "speculation.method",
            f"method {name} is an MTP model type: vLLM reads it as mtp (and logs "
            "that the name is deprecated)",
        )
        name = "mtp"
    feats = [f for f in KNOWLEDGE.features if f.kind == "method" and f.name == name]
    if not feats:
        sk.refuse(f"method {name}", "not a vLLM speculative method SpecPact knows")
        return {"method": "none"}, [], None
    method = feats[-1].method
    if method is None:
        sk.refuse(
            f"method {name}",
            "vLLM runs it, but specpact/v1 has no such method (see the format README: methods out of scope)",
        )
        return {"method": "none"}, [], None
    if not any(f in list(view.features("method")) for f in feats):
        sk.say("speculation.method", f"method {name} is not in {view.label}: name the release it runs on")
    speculation: dict[str, Any] = {"method": method}
    if "num_speculative_tokens" in config:
        speculation["num_speculative_tokens"] = config["num_speculative_tokens"]
    params: dict[str, Any] = {}
    for key in ("prompt_lookup_min", "prompt_lookup_max"):
        if key in config and method == "ngram":
            params[key] = config[key]
        elif key in config:
            sk.say("argv", f"--speculative-config key {key} applies to ngram; vLLM ignores it for {method}")
    if config.get("use_heterogeneous_vocab"):
        params["heterogeneous_vocab"] = True
    if config.get("parallel_drafting"):
        params["parallel_drafting"] = True
    schedule = config.get("num_speculative_tokens_per_batch_size")
    if schedule:
        params["token_schedule"] = _schedule(schedule, sk)
    for key in ("use_heterogeneous_vocab", "parallel_drafting", "num_speculative_tokens_per_batch_size"):
        if key in config:
            warn_if_moved(sk, view, key, "key", f"--speculative-config key {key}")
    if "synthetic_acceptance_length" in config:
        params["synthetic_acceptance_length"] = float(config["synthetic_acceptance_length"])
    _verifier(config, speculation, sk)
    if params:
        speculation["params"] = params
    assets = _assets(config, method, params, tokenizer, sk)
    off = config.get("disable_by_batch_size")
    if off is not None:
        warn_if_moved(
            sk, view, "disable_by_batch_size", "key", "--speculative-config key disable_by_batch_size"
        )
    rest = {k: v for k, v in config.items() if k not in _KEYS_TAKEN}
    judge(sk, view, {k: _text(v) for k, v in rest.items()}, "key", where="--speculative-config key ")
    return speculation, assets, off if isinstance(off, int) else None


def _verifier(config: dict[str, Any], speculation: dict[str, Any], sk: Skeleton) -> None:
    """rejection_sample_method: a value the contract holds becomes speculation.verifier (and
    a lossy one, verification: lossy); the default and the others are judged as before."""
    value = config.get("rejection_sample_method")
    spelling = by_word(ENGINE, "rejection_sample_method", value if isinstance(value, str) else None)
    if spelling is None:
        return
    del config["rejection_sample_method"]
    speculation["verifier"] = spelling.verifier
    if spelling.verifier in LOSSY:
        sk.say(
            "verification",
            f"rejection_sample_method={value} is lossy: imported as verification: lossy; add "
            "measurement.output_stability (an output-quality rule) before it validates",
        )


def _text(value: Any) -> str | None:
    return json.dumps(value) if not isinstance(value, str) else value


def _assets(
    config: dict[str, Any], method: str, params: dict[str, Any], tokenizer: dict[str, Any], sk: Skeleton
) -> list[dict[str, Any]]:
    model = config.get("model")
    role = asset_role(method)
    if not model or model in ("ngram", "[ngram]", "suffix"):
        return []
    if role is None:
        sk.say("assets", f"speculative model {model!r} is not used by method {method}; ignored")
        return []
    asset: dict[str, Any] = {"role": role, "name": model}
    if config.get("revision"):
        asset["revision"] = config["revision"]
    else:
        sk.say(f"assets[role={role}].revision", "the command does not pin the checkpoint revision: add one")
    if role == "mtp_assistant":
        sk.say(
            f"assets[role={role}]",
            "an MTP assistant checkpoint: the route depends on it (vLLM maps e.g. "
            "gemma4_assistant to its MTP path)",
        )
    if role == "draft":
        if params.get("heterogeneous_vocab"):
            asset["tokenizer"] = {"name": model}
            sk.say(f"assets[role={role}].tokenizer", "assumed to be the draft's own tokenizer: confirm")
        else:
            asset["tokenizer"] = dict(tokenizer)
            sk.say(
                f"assets[role={role}].tokenizer",
                "assumed to be the target's: vLLM refuses another vocabulary without use_heterogeneous_vocab",
            )
    return [asset]


def _schedule(ranges: Any, sk: Skeleton) -> list[dict[str, Any]]:
    if isinstance(ranges, dict):  # the {"1-16": 3} form vllm-project/vllm#32374 first proposed
        items = []
        for key, tokens in ranges.items():
            start, _, end = str(key).partition("-")
            items.append([int(start), int(end or start), tokens])
        ranges = sorted(items)
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
