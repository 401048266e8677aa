"""Import of llama-server command lines: `llama-server`, `./llama-server`, `build/bin/
llama-server`, inside `docker run … ghcr.io/ggml-org/llama.cpp:server[-cuda][-bNNNN]`, with
`LLAMA_ARG_*` environment variables standing for their flags. Old spellings (`--draft-max`,
`--spec-ngram-size-n`, `eagle3`) import with a warning naming their replacement."""

from __future__ import annotations

import re
from typing import Any

from ..engines import REQUIRED_ASSET, asset_role
from ..engines.llamacpp import KNOWLEDGE, NGRAM_CACHE_TOKENS
from ..engines.llamacpp_help import BARE_FLAGS
from ..engines.release import ReleaseView
from ..errors import ContractError
from .base import Args, ImportResult, Skeleton, import_error
from .cmdline import Image, unwrap
from .dating import newest_read, upgrade
from .words import dated, env_flags, judge, judge_leftovers, warn_if_moved

ENGINE = "llamacpp"
PROGRAMS = [("llama-server",), ("llama", "serve")]
# A Homebrew install names its build in the path: /opt/homebrew/Cellar/llama.cpp/9700/bin/llama
_INSTALL_PATH = re.compile(r"/Cellar/llama\.cpp/(\d+)/")
IMAGE = Image(
    re.compile(r"(^|/)(ggml-org|ggerganov)/llama\.cpp$"),
    re.compile(r"^(?:[a-z0-9]+-)*b(\d+)$"),
    "llama.cpp's images are tagged server[-backend][-bNNNN], e.g. ghcr.io/ggml-org/llama.cpp:server-b9246",
)
_BARE = BARE_FLAGS | {
    s for f in KNOWLEDGE.features if f.kind == "flag" and not f.takes_value for s in f.spellings
}
_VALUED = ({s for f in KNOWLEDGE.features if f.kind == "flag" and f.takes_value for s in f.spellings} | {
    "-c", "--ctx-size", "-t", "--threads", "-ngl", "--gpu-layers", "--n-gpu-layers", "--host", "--port",
    "-a", "--alias", "-b", "--batch-size", "-ub", "--ubatch-size", "-ctk", "-ctv", "-fit",
}) - {"-fa", "--flash-attn"}  # fmt: skip
# (-fa took no value in older builds: its next word is its value only when it is not an option.)
# Spellings of the types between #22397 and #22964/#22673, and what they became.
_OLD_TYPES = {"draft": "draft-simple", "eagle3": "draft-eagle3", "mtp": "draft-mtp"}
_DRAFT = ("-md", "--model-draft", "--spec-draft-model")
_DRAFT_HF = ("-hfd", "-hfrd", "--hf-repo-draft", "--spec-draft-hf")
_TOKENS = (
    "--spec-draft-n-max",
    "--draft-max",
    "--draft",
    "--draft-n",
    "--spec-ngram-size-m",
    "--spec-ngram-mod-n-max",
    *(f"--spec-ngram-{v}-size-m" for v in ("simple", "map-k", "map-k4v")),
)
_MIN = ("--spec-draft-n-min", "--draft-min", "--draft-n-min", "--spec-ngram-mod-n-min")
_LOOKUP = (
    "--spec-ngram-size-n",
    "--spec-ngram-mod-n-match",
    *(f"--spec-ngram-{v}-size-n" for v in ("simple", "map-k", "map-k4v")),
)


def import_argv(argv: list[str] | str, engine_version: str | None = None) -> ImportResult:
    cmd = unwrap(argv, PROGRAMS, IMAGE, "llama.cpp", engine_version, program_version=_INSTALL_PATH)
    if cmd.words[:1] == ["--server"]:  # the :full image runs tools by name
        cmd.words.pop(0)
    parsed = KNOWLEDGE.version(cmd.image_version) if cmd.image_version else None
    version = str(parsed) if parsed else cmd.image_version
    view = KNOWLEDGE.view(version)
    args = Args(cmd.words, _BARE, _VALUED)
    view, said = dated(view, list(args.options), "flag")
    # A command dated by its words is read, and recorded, as the release it was written for.
    sk = Skeleton(ENGINE, "llama.cpp", newest_read(view) if said else version)
    for i, message in enumerate(said):
        sk.say("argv" if i else "target.engine_version", message)
    by_env = env_flags(view) | {f.env: f for f in KNOWLEDGE.features if f.env}
    other_env: dict[str, str | None] = {}
    for key, value in cmd.env.items():
        if key in by_env:
            args.add(by_env[key].name, value, f"{key} (the environment)")
        else:
            other_env[key] = value
    judge(sk, view, other_env, "env")
    model = args.take("-m", "--model") or args.take("-hf", "-hfr", "--hf-repo")
    presets = [n for n in ("--fim-qwen-7b-spec", "--fim-qwen-14b-spec", "--spec-default") if args.given(n)]
    if presets and not model:
        for name in presets:
            sk.refuse(
                name,
                "a preset: the model, the draft and the speculation settings it picks are not on "
                "the command line",
            )
        raise ContractError(
            "The command line changes speculation in ways specpact/v1 cannot hold.", sk.refused
        )
    if not model:
        raise import_error("no model: expected `llama-server -m MODEL.gguf …`")
    sk.say("compatibility.tokenizer", "the GGUF carries its tokenizer: named after the model file; confirm")
    tokenizer: dict[str, Any] = {"name": model}
    speculation, assets = _speculation(args, tokenizer, sk, view)
    max_batch = args.take_int("--parallel", "-np")
    judge_leftovers(sk, view, args)
    result = sk.result(
        notes=cmd.notes,
        model=model,
        revision=None,
        tokenizer=tokenizer,
        speculation=speculation,
        assets=assets,
        max_batch_size=max_batch,
        max_concurrency=None,
    )
    if said:
        result.unresolved += upgrade(result.document, view)
    return result


Kind = tuple[str, str | None, list[str]]  # contract method, n-gram variant, fallback types


def _type(args: Args, sk: Skeleton, view: ReleaseView, draft: str | None) -> Kind | None:
    """(contract method, n-gram variant, fallback types) of --spec-type, or None for no
    speculation. A comma list is tried in order (engines/llamacpp.py, #22838): the first type
    is the contract's method, n-gram types after it are speculation.params.fallback_types."""
    raw = args.take("--spec-type")
    types = [t.strip().replace("_", "-") for t in (raw or "").split(",") if t.strip() and t.strip() != "none"]
    if not types:
        old_style = view.method("draft_model")
        if draft and old_style is not None and old_style.name == "-md":
            sk.say(
                "speculation.method",
                f"a draft model without --spec-type: {view.label} runs it from -md alone",
            )
            return "draft_model", None, []
        if draft:
            sk.say(
                "speculation.method",
                f"{view.label} does not speculate with -md alone: --spec-type defaults to none (from b9246 "
                "a draft needs --spec-type draft-simple or draft-mtp, #22964); read as method none, the "
                "draft model is loaded but unused",
            )
        return None
    first = _method_of(types[0], sk)
    if first is None:
        return None
    fallbacks: list[str] = []
    for name in types[1:]:
        kind = _method_of(name, sk)
        if kind is None:
            continue
        if kind[0] != "ngram":
            sk.refuse(
                f"--spec-type {raw}",
                f"{name} after the first type: a fallback that loads its own checkpoint is a second "
                "route; specpact/v1 holds n-gram fallbacks only",
            )
        elif f"ngram-{kind[1]}" in fallbacks or (first[0], first[1]) == kind:
            sk.say(
                "speculation.params.fallback_types", f"{name} is listed again in --spec-type {raw}: read once"
            )
        else:
            fallbacks.append(f"ngram-{kind[1]}")
    return first[0], first[1], fallbacks


def _method_of(name: str, sk: Skeleton) -> tuple[str, str | None] | None:
    """(contract method, n-gram variant) of one --spec-type name; None once refused."""
    if name in _OLD_TYPES:
        sk.say(
            "argv",
            f"--spec-type {name} was renamed {_OLD_TYPES[name]} (ggml-org/llama.cpp#22964, #22673; "
            "b9246 reads the new name)",
        )
        name = _OLD_TYPES[name]
    feats = [f for f in KNOWLEDGE.features if f.kind == "method" and f.name == name]
    if not feats:
        raise import_error(f"--spec-type {name} has no contract method")
    if feats[0].method is None:
        sk.refuse(
            f"--spec-type {name}",
            "llama.cpp runs it, but specpact/v1 has no such method (see the format "
            "README: methods out of scope)",
        )
        return None
    return feats[0].method, feats[0].variant


def _speculation(
    args: Args, tokenizer: dict[str, Any], sk: Skeleton, view: ReleaseView
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    draft_flag = next((n for n in (*_DRAFT, *_DRAFT_HF) if args.given(n)), None)
    draft = args.take(*_DRAFT) or args.take(*_DRAFT_HF)
    kind = _type(args, sk, view, draft)
    if kind is None:
        return {"method": "none"}, []
    method, variant, fallbacks = kind
    speculation: dict[str, Any] = {"method": method}
    params: dict[str, Any] = {}
    if variant and variant != "simple":
        params["ngram_variant"] = variant
    if fallbacks:
        params["fallback_types"] = fallbacks
    _fallback_flags(args, sk, fallbacks)
    tokens = _count(args, sk, view, method, variant, _TOKENS, "speculation.num_speculative_tokens")
    if tokens is not None:
        speculation["num_speculative_tokens"] = tokens
    elif variant == "cache":
        speculation["num_speculative_tokens"] = NGRAM_CACHE_TOKENS
        sk.say("speculation.num_speculative_tokens", f"ngram-cache drafts {NGRAM_CACHE_TOKENS} tokens")
    else:
        default = next(
            (
                f.default
                for f in view.carriers("speculation.num_speculative_tokens", method, variant)
                if f.default
            ),
            None,
        )
        if default is not None:
            speculation["num_speculative_tokens"] = int(default)
            sk.say(
                "speculation.num_speculative_tokens",
                f"the command sets none: {view.label}'s default {default}",
            )
        else:
            sk.say("speculation.num_speculative_tokens", "left out: the command uses llama-server's default")
    least = _count(args, sk, view, method, variant, _MIN, "speculation.params.min_speculative_tokens")
    if least is not None:
        params["min_speculative_tokens"] = least
    if method == "ngram":
        lookup = _count(args, sk, view, method, variant, _LOOKUP, "speculation.params.prompt_lookup_max")
        if lookup is not None:
            params["prompt_lookup_max"] = lookup
    if params:
        speculation["params"] = params
    role = asset_role(method)
    assets: list[dict[str, Any]] = []
    if draft and role:
        if draft_flag:
            warn_if_moved(sk, view, draft_flag, "flag", f"{args.spelled.get(draft_flag, draft_flag)}")
        asset: dict[str, Any] = {"role": role, "name": draft}
        sk.say(f"assets[role={role}].revision", "llama-server loads a file: add the checkpoint's revision")
        if role == "draft":
            asset["tokenizer"] = dict(tokenizer)
            sk.say(f"assets[role={role}].tokenizer", "assumed to be the target's (llama.cpp refuses another)")
        assets.append(asset)
    elif method in REQUIRED_ASSET:  # MTP and DSpark may run without one
        raise import_error(f"{method} needs a draft model (-md)")
    elif draft:
        sk.say("assets", f"draft model {draft!r} is not used by {method}; ignored")
    return speculation, assets


def _fallback_flags(args: Args, sk: Skeleton, fallbacks: list[str]) -> None:
    """The fallback types' own flags (--spec-ngram-mod-n-match …): the contract runs them at
    llama-server's defaults, so each is left out for review, with the default it falls back to."""
    for name in fallbacks:
        variant = name.removeprefix("ngram-")
        for feat in KNOWLEDGE.features:
            if feat.kind != "flag" or feat.method != "ngram" or feat.variant != variant:
                continue
            given = next((s for s in feat.spellings if args.given(s)), None)
            if given is None or feat.replaced_by:
                continue
            value = args.take(given)
            default = f" (llama-server's default: {feat.default})" if feat.default else ""
            sk.say(
                "speculation.params.fallback_types",
                f"{args.spelled.get(given, given)} {value} sets the fallback type {name}, which specpact/v1 "
                f"runs at its defaults{default}; left out",
            )


def _count(
    args: Args,
    sk: Skeleton,
    view: ReleaseView,
    method: str,
    variant: str | None,
    names: tuple[str, ...],
    field: str,
) -> int | None:
    """The value of the flag that carries `field` for this type, in any build's spelling;
    flags of the same family that this type does not read are listed as unused."""
    given = [n for n in names if args.given(n)]
    if not given:
        return None
    known = {
        s
        for f in KNOWLEDGE.features
        if f.field == field and _applies(f, method, variant)
        for s in f.spellings
    }
    chosen = next((n for n in given if n in known), None)
    for name in given:
        if name != chosen:
            value = args.take(name)
            sk.say(
                "argv",
                f"{args.spelled.get(name, name)} {value} is not read for this speculation type; ignored",
            )
    if chosen is None:
        return None
    warn_if_moved(sk, view, chosen, "flag", args.spelled.get(chosen, chosen))
    return args.take_int(chosen)


def _applies(feat: Any, method: str, variant: str | None) -> bool:
    if feat.method is not None and feat.method != method:
        return False
    if feat.only and method not in feat.only:
        return False
    return feat.variant is None or feat.variant == variant
