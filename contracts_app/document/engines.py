"""What each engine can run, from its own sources (checked 2026-11):

- vLLM `SpeculativeConfig.method`: ngram, medusa, mlp_speculator, draft_model, suffix,
  eagle, eagle3, the MTP model types (method "mtp"); `use_heterogeneous_vocab` lets a
  draft_model use another vocabulary (token-level intersection, recent releases only);
  `disable_by_batch_size` switches speculation off for new requests above a queue size.
- TGI: `--speculate N` only: Medusa when the model repository carries Medusa heads,
  n-gram otherwise.
- SGLang `--speculative-algorithm`: EAGLE, EAGLE3, NEXTN (MTP), STANDALONE (a small draft
  model), NGRAM (CUDA only).
- llama.cpp `llama-server --spec-type`: ngram-* (model-free), draft-simple (draft model),
  eagle3. A draft whose vocabulary differs is refused by current releases.
- Transformers `generate()`: `assistant_model` (draft; with `tokenizer` and
  `assistant_tokenizer` it is *universal assisted decoding*, any vocabulary),
  `prompt_lookup_num_tokens` (n-gram), `assistant_early_exit` (self-speculation).
  Assisted generation runs batch size 1 only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Engine = Literal["vllm", "tgi", "sglang", "llamacpp", "transformers"]
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
]
AssetRole = Literal["draft", "eagle_head", "medusa_heads", "mlp_speculator"]

ENGINES: tuple[str, ...] = ("vllm", "tgi", "sglang", "llamacpp", "transformers")
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
)

SUPPORTED_METHODS: dict[str, frozenset[str]] = {
    "vllm": frozenset(
        {"none", "draft_model", "eagle", "eagle3", "medusa", "mtp", "mlp_speculator", "ngram", "suffix"}
    ),
    "tgi": frozenset({"none", "medusa", "ngram"}),
    "sglang": frozenset({"none", "draft_model", "eagle", "eagle3", "mtp", "ngram"}),
    "llamacpp": frozenset({"none", "draft_model", "eagle3", "ngram"}),
    "transformers": frozenset({"none", "draft_model", "ngram", "early_exit"}),
}

UNSUPPORTED_HINT: dict[str, str] = {
    "vllm": "vLLM has no early-exit self-speculation",
    "tgi": "TGI supports only Medusa and n-gram speculation (--speculate)",
    "sglang": "SGLang runs EAGLE, EAGLE-3, MTP (NEXTN), a standalone draft model and n-gram",
    "llamacpp": "llama-server runs n-gram, a draft model and EAGLE-3 (--spec-type)",
    "transformers": "Transformers generate() runs an assistant model, prompt lookup and early exit",
}

ENGINE_NAMES: dict[str, str] = {
    "vllm": "vLLM",
    "tgi": "TGI",
    "sglang": "SGLang",
    "llamacpp": "llama.cpp",
    "transformers": "Transformers",
}


@dataclass(frozen=True)
class MethodInfo:
    """How people call a method, and what it needs beside the target. `asset` is the role
    of the checkpoint it cannot run without (MTP uses the target's own prediction layers;
    n-gram, suffix and early exit need no second checkpoint); `dependency` says in words
    what the route then depends on."""

    name: str
    asset: str | None = None
    dependency: str | None = None


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
    "mtp": MethodInfo("multi-token prediction (MTP) layers"),
    "mlp_speculator": MethodInfo("an MLP speculator", "mlp_speculator", "an MLP speculator checkpoint"),
    "ngram": MethodInfo("n-gram prompt lookup"),
    "suffix": MethodInfo("suffix decoding"),
    "early_exit": MethodInfo("early-exit self-speculation"),
}

# The asset each method cannot run without.
REQUIRED_ASSET: dict[str, str] = {m: info.asset for m, info in METHOD_INFO.items() if info.asset}


def method_name(method: str) -> str:
    info = METHOD_INFO.get(method)
    return info.name if info else method


# Engines with a mode in which draft and target may use different vocabularies.
HETEROGENEOUS_VOCAB: dict[str, str] = {
    "transformers": "universal assisted decoding (generate(tokenizer=..., assistant_tokenizer=...))",
    "vllm": "speculative_config use_heterogeneous_vocab (method draft_model, recent vLLM releases)",
}

# Engines that can switch speculation off above a batch/queue size by themselves.
SPECULATION_OFF_ABOVE: dict[str, str] = {
    "vllm": "speculative_config disable_by_batch_size",
}
