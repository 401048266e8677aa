"""llama.cpp: `llama-server -m MODEL --spec-type … [-md DRAFT] …`. What the flags are
called depends on the build (engines/llamacpp.py): from b9246 the draft-model types are
`draft-simple`, `draft-eagle3`, `draft-mtp` with `--spec-draft-n-max`, and each n-gram
type has its own flags; up to b8941 a draft model ran from `-md` alone with `--draft-max`
and the n-gram types shared `--spec-ngram-size-n/-m`. llama-server loads a local GGUF:
there is no revision flag. `--metrics` is always rendered: the worker reads /metrics."""

from __future__ import annotations

from typing import Any

from ..engines import asset_role
from ..engines.llamacpp import KNOWLEDGE
from ..engines.release import ReleaseView
from ..rules_release import variant_of, view_of
from ..schema import ContractDocument
from .base import RenderedConfig, common_notes, rendered
from .params_render import flag_config, flag_words

ENGINE = "llamacpp"


def spec_type(doc: ContractDocument) -> str | None:
    view, method = view_of(doc), doc.speculation.method
    if method == "none":
        return None
    variant = variant_of(doc)
    feat = next(
        (f for f in view.features("method") if f.method == method and f.variant in (None, variant)), None
    )
    if feat is None or feat.name.startswith("-"):
        return None  # old builds: a draft model needs no --spec-type
    return feat.name


def speculation_flags(doc: ContractDocument, view: ReleaseView) -> list[tuple[str, str]]:
    """(flag, value) for the contract's speculation on this build: the type, the draft file,
    the token count and the lookup length, each in the spelling this build reads."""
    spec, p = doc.speculation, doc.speculation.params
    kind = spec_type(doc)
    if kind and p and p.fallback_types:  # a stacked list: tried in order (engines/llamacpp.py)
        kind = ",".join([kind, *p.fallback_types])
    out: list[tuple[str, str]] = [("--spec-type", kind)] if kind else []
    role = asset_role(spec.method)
    asset = doc.asset(role) if role else None
    if asset is not None:
        out.append(("-md", asset.name))  # the short spelling every build reads
    variant = variant_of(doc)
    for field, value in (
        ("speculation.num_speculative_tokens", spec.num_speculative_tokens),
        ("speculation.params.min_speculative_tokens", p.min_speculative_tokens if p else None),
        ("speculation.params.prompt_lookup_max", p.prompt_lookup_max if p else None),
    ):
        carriers = view.carriers(field, spec.method, variant)
        if value is not None and carriers:
            out.append((carriers[0].name, str(value)))
    return out


def render(doc: ContractDocument) -> RenderedConfig:
    target, view = doc.target, view_of(doc)
    argv = ["llama-server", "-m", target.model]
    config: dict[str, Any] = {}
    notes = common_notes(doc, "llama-server")
    if target.revision:
        notes.append(f"llama-server has no revision flag: -m must be the GGUF of revision {target.revision}")
    for flag, value in speculation_flags(doc, view):
        config[flag.lstrip("-").replace("-", "_")] = value
        argv += [flag, value]
    argv += flag_words(doc, view)
    config.update(flag_config(doc, view))
    argv += ["--parallel", str(doc.compatibility.batching.max_batch_size), "--metrics"]
    if variant_of(doc) == "cache":
        notes.append("ngram-cache drafts 8 tokens; no flag sets it")
    notes.append('per request, llama-server also takes "speculative.type" and "speculative.n_max"')
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str] | str, engine_version: str | None = None) -> Any:
    from .llamacpp_import import import_argv as run

    return run(argv, engine_version)


__all__ = ["KNOWLEDGE", "import_argv", "render", "spec_type", "speculation_flags"]
