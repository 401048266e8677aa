"""The engine knobs of a contract (`speculation.params.engine`, `speculation.env`) as the
release it names spells them: flags for llama.cpp and SGLang, `--speculative-config` keys
for vLLM, and environment variables before the command (`VAR=value cmd`)."""

from __future__ import annotations

import shlex
from typing import Any

from ..engines.params import Param, ValueT, param, spelling_in, text
from ..engines.release import ReleaseView
from ..schema import ContractDocument
from .base import RenderedConfig


def knobs(doc: ContractDocument, view: ReleaseView) -> list[tuple[Param, str, ValueT]]:
    """(param, the release's spelling, value) of each engine param; validation has checked
    that the release spells every one, so none is dropped here."""
    p = doc.speculation.params
    out: list[tuple[Param, str, ValueT]] = []
    for name, value in sorted((p.engine or {}).items() if p else ()):
        known = param(doc.target.engine, name)
        spelled = spelling_in(view, known) if known else None
        if known is not None and spelled is not None:
            out.append((known, spelled, value))
    return out


def flag_words(doc: ContractDocument, view: ReleaseView) -> list[str]:
    words: list[str] = []
    for known, spelled, value in knobs(doc, view):
        words += [spelled] if known.bare else [spelled, text(known, value)]
    return words


def flag_config(doc: ContractDocument, view: ReleaseView) -> dict[str, Any]:
    """The same knobs for the render's `config`, keyed as the engine's own config names them."""
    return {spelled.lstrip("-").replace("-", "_"): value for _, spelled, value in knobs(doc, view)}


def config_keys(doc: ContractDocument, view: ReleaseView) -> dict[str, Any]:
    return {spelled: value for _, spelled, value in knobs(doc, view)}


def with_env(result: RenderedConfig, doc: ContractDocument) -> RenderedConfig:
    env = dict(sorted((doc.speculation.env or {}).items()))
    if not env:
        return result
    result.env = env
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    result.shell = f"{prefix} {result.shell}"
    return result
