"""Verifiers: how an engine checks drafted tokens against the target (issue 23).

A contract's `speculation.verifier` names one; leaving it out means the engine's standard
verification, which keeps the target's output distribution (lossless). A lossy verifier
accepts tokens the target would have rejected: outputs change, so the contract must say
`verification: lossy` and carry an output-quality rule (rules in `verification.py`).

Each spelling was read in the engine's released wheels (the files named in `source`);
`since` is the first release the table read with it, `until` the first without it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verifier = Literal["standard", "block", "rejection_sampling", "synthetic", "fly"]
VERIFIERS: tuple[str, ...] = ("standard", "block", "rejection_sampling", "synthetic", "fly")

VLLM_SPEC = "vllm-project/vllm vllm/config/speculative.py (RejectionSampleMethod, {})"
SGLANG_SPEC = "sgl-project/sglang python/sglang/srt/arg_groups/fields/spec.py (0.5.23 wheel)"

# What each verifier does, in words a reviewer reads; lossy ones say why.
MEANING: dict[str, str] = {
    "standard": "the engine's standard verification (lossless: the target's distribution is kept)",
    "block": "block verification (Sun et al.): the drafted tokens are verified jointly (lossless)",
    "rejection_sampling": "per-token rejection sampling instead of SGLang's tree verification (lossless)",
    "synthetic": "synthetic acceptance: drafts are accepted at a set rate, not by the target (lossy; "
    "vLLM offers it to benchmark speculation)",
    "fly": "FLy: an entropy-gated deferred window over the acceptance decisions (lossy: vLLM 0.33.0 logs "
    "'FLy verification is a lossy speculative decoding method and may degrade model outputs')",
}
LOSSY: frozenset[str] = frozenset({"synthetic", "fly"})


@dataclass(frozen=True)
class Spelling:
    """How `verifier` is told to one engine: a config key and its value (vLLM) or a bare
    flag (SGLang)."""

    engine: str
    verifier: str
    name: str
    value: str | None
    source: str
    since: str | None = None
    until: str | None = None
    note: str = ""


SPELLINGS: tuple[Spelling, ...] = (
    # vLLM: Literal["strict", "probabilistic"] in 0.18.0; "synthetic" added in 0.19.0 (with one
    # synthetic_acceptance_rate; synthetic_acceptance_length from 0.20.0); "standard" replaced
    # "strict"/"probabilistic" in 0.21.0; "block" first read in 0.25.0 (absent in 0.24.0);
    # "fly" first read in 0.33.0 (absent in 0.30.0).
    Spelling(
        "vllm",
        "synthetic",
        "rejection_sample_method",
        "synthetic",
        VLLM_SPEC.format("0.20.0-0.33.0 wheels"),
        since="0.20.0",
        note="with synthetic_acceptance_length (0.19.0 took one synthetic_acceptance_rate instead)",
    ),
    Spelling(
        "vllm", "block", "rejection_sample_method", "block", VLLM_SPEC.format("0.25.0 wheel"), since="0.25.0"
    ),
    Spelling(
        "vllm", "fly", "rejection_sample_method", "fly", VLLM_SPEC.format("0.33.0 wheel"), since="0.33.0"
    ),
    Spelling(
        "sglang",
        "rejection_sampling",
        "--speculative-use-rejection-sampling",
        None,
        SGLANG_SPEC,
        since="0.5.23",
        note="requires --speculative-eagle-topk 1",
    ),
    Spelling(
        "sglang",
        "block",
        "--speculative-use-block-verification",
        None,
        SGLANG_SPEC,
        since="0.5.23",
        note="EAGLE/EAGLE3/NEXTN with --speculative-eagle-topk 1, or sampled DFLASH/DSPARK drafts",
    ),
)


def spellings(engine: str, verifier: str) -> list[Spelling]:
    return [s for s in SPELLINGS if s.engine == engine and s.verifier == verifier]


def by_word(engine: str, name: str, value: str | None = None) -> Spelling | None:
    """The spelling an imported word is (`rejection_sample_method` + its value, or a flag)."""
    return next(
        (
            s
            for s in SPELLINGS
            if s.engine == engine and s.name == name and (s.value is None or s.value == value)
        ),
        None,
    )
