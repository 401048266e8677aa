"""What each engine runs, release by release, from its own sources (one module per
engine, each entry citing where it was read). Validation, render, import and the format
README's engine × method table all read this one table."""

from __future__ import annotations

from . import llamacpp, sglang, tgi, transformers, trtllm, vllm
from .methods import (
    ASSET_ROLES,
    ENGINE_NAMES,
    ENGINES,
    METHOD_INFO,
    METHODS,
    REQUIRED_ASSET,
    SERVER_ENGINES,
    AssetRole,
    Engine,
    Method,
    MethodInfo,
    asset_role,
    method_name,
)
from .release import EngineKnowledge, Feature, Gap, ReleaseView, Version, parse_version

KNOWLEDGE: dict[str, EngineKnowledge] = {
    "vllm": vllm.KNOWLEDGE,
    "tgi": tgi.KNOWLEDGE,
    "sglang": sglang.KNOWLEDGE,
    "llamacpp": llamacpp.KNOWLEDGE,
    "transformers": transformers.KNOWLEDGE,
    "trtllm": trtllm.KNOWLEDGE,
}


def release_view(engine: str, version: str | None) -> ReleaseView:
    return KNOWLEDGE[engine].view(version)


def _methods_ever(k: EngineKnowledge) -> frozenset[str]:
    return frozenset({"none"} | {f.method for f in k.features if f.kind == "method" and f.method})


# Methods some release of each engine runs (the release a contract names decides).
SUPPORTED_METHODS: dict[str, frozenset[str]] = {e: _methods_ever(k) for e, k in KNOWLEDGE.items()}

UNSUPPORTED_HINT: dict[str, str] = {
    e: f"{k.name} runs {', '.join(sorted(SUPPORTED_METHODS[e] - {'none'}))}" for e, k in KNOWLEDGE.items()
}

# Engines with a mode in which draft and target may use different vocabularies.
HETEROGENEOUS_VOCAB: dict[str, str] = {
    "transformers": "universal assisted decoding (generate(tokenizer=..., assistant_tokenizer=...))",
    "vllm": "speculative_config use_heterogeneous_vocab (method draft_model, vLLM 0.25.0 and later)",
}

__all__ = [
    "ASSET_ROLES",
    "ENGINES",
    "ENGINE_NAMES",
    "HETEROGENEOUS_VOCAB",
    "KNOWLEDGE",
    "METHODS",
    "METHOD_INFO",
    "REQUIRED_ASSET",
    "SERVER_ENGINES",
    "SUPPORTED_METHODS",
    "UNSUPPORTED_HINT",
    "AssetRole",
    "Engine",
    "EngineKnowledge",
    "Feature",
    "Gap",
    "Method",
    "MethodInfo",
    "ReleaseView",
    "Version",
    "asset_role",
    "method_name",
    "parse_version",
    "release_view",
]
