"""The format's methods, assets and engines, and how people call them. What each engine
release runs is in the per-engine modules beside this one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Engine = Literal["vllm", "tgi", "sglang", "llamacpp", "transformers", "trtllm"]
Method = Literal[
    "none",
    "draft_model",
    "eagle",
    "eagle3",
    "medusa",
    "mtp",
    "mlp_speculator",
    "ngram",
    "suffix",
    "early_exit",
    "dflash",
    "dspark",
]
# mtp_assistant (added in issue 10): an MTP checkpoint kept apart from the target, e.g. a
# Gemma 4 assistant (vLLM `{"method": "mtp", "model": ...}`, llama.cpp `draft-mtp` + -md).
AssetRole = Literal["draft", "eagle_head", "medusa_heads", "mlp_speculator", "mtp_assistant"]

ENGINES: tuple[str, ...] = ("vllm", "tgi", "sglang", "llamacpp", "transformers", "trtllm")
# The engines that serve an OpenAI-compatible HTTP API (a live endpoint, a server the worker
# launches); transformers runs inside the worker. The worker, which cannot import the
# format, spells them again as its `ServerKind` (worker/harness/plan.py); a test holds the two equal.
SERVER_ENGINES: tuple[str, ...] = ("vllm", "sglang", "tgi", "llamacpp", "trtllm")
METHODS: tuple[str, ...] = (
    "none",
    "draft_model",
    "eagle",
    "eagle3",
    "medusa",
    "mtp",
    "mlp_speculator",
    "ngram",
    "suffix",
    "early_exit",
    "dflash",
    "dspark",
)
ASSET_ROLES: tuple[str, ...] = ("draft", "eagle_head", "medusa_heads", "mlp_speculator", "mtp_assistant")

ENGINE_NAMES: dict[str, str] = {
    "vllm": "vLLM",
    "tgi": "TGI",
    "sglang": "SGLang",
    "llamacpp": "llama.cpp",
    "transformers": "Transformers",
    "trtllm": "TensorRT-LLM",
}


@dataclass(frozen=True)
class MethodInfo:
    """How people call a method, and what it needs beside the target. `asset` is the role
    of the checkpoint it cannot run without; `optional_asset` one it may use (MTP runs the
    target's own prediction layers, or a separate assistant checkpoint); `dependency` says
    in words what the route then depends on."""

    name: str
    asset: str | None = None
    dependency: str | None = None
    optional_asset: str | None = None


METHOD_INFO: dict[str, MethodInfo] = {
    "none": MethodInfo("no speculation (plain decoding)"),
    "draft_model": MethodInfo("a draft model", "draft", "a second model"),
    "eagle": MethodInfo(
        "EAGLE heads", "eagle_head", "EAGLE heads (a second checkpoint trained on the target)"
    ),
    "eagle3": MethodInfo(
        "EAGLE-3 heads", "eagle_head", "EAGLE-3 heads (a second checkpoint trained on the target)"
    ),
    "medusa": MethodInfo("Medusa heads", "medusa_heads", "Medusa heads"),
    "mtp": MethodInfo("multi-token prediction (MTP) layers", optional_asset="mtp_assistant"),
    "mlp_speculator": MethodInfo("an MLP speculator", "mlp_speculator", "an MLP speculator checkpoint"),
    "ngram": MethodInfo("n-gram prompt lookup"),
    "suffix": MethodInfo("suffix decoding"),
    "early_exit": MethodInfo("early-exit self-speculation"),
    # Added in issue 23 (additively): block-diffusion drafters. DFlash always loads its
    # drafter checkpoint; DSpark's drafter may ship inside the target's own checkpoint (vLLM
    # 0.33.0 vllm/config/speculative.py: "DeepSeek DSpark can ship the weights inside the
    # target checkpoint"). Both share the target's vocabulary, so the drafter is a `draft`.
    "dflash": MethodInfo(
        "a DFlash block-diffusion drafter",
        "draft",
        "a DFlash drafter (a second checkpoint trained on the target)",
    ),
    "dspark": MethodInfo("a DSpark block-diffusion drafter", optional_asset="draft"),
}

# The asset each method cannot run without.
REQUIRED_ASSET: dict[str, str] = {m: info.asset for m, info in METHOD_INFO.items() if info.asset}


def asset_role(method: str) -> str | None:
    """The role of the checkpoint `method` runs: required, or the optional MTP assistant."""
    info = METHOD_INFO.get(method)
    if info is None:
        return None
    return info.asset or info.optional_asset


def method_name(method: str) -> str:
    info = METHOD_INFO.get(method)
    return info.name if info else method
