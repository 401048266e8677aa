"""Transformers `generate()` by release. Read from the released wheels (PyPI `transformers`
4.29.0 … 5.24.0): `transformers/generation/configuration_utils.py` (GenerationConfig) and
`transformers/generation/utils.py` (`_get_candidate_generator`: early exit first, then
prompt lookup, then MTP, then an assistant model). Assisted generation runs one sequence
at a time."""

from __future__ import annotations

from .release import EngineKnowledge, Feature

CONFIG = "huggingface/transformers src/transformers/generation/configuration_utils.py (released wheels)"
UTILS = "huggingface/transformers src/transformers/generation/utils.py (released wheels)"


def _k(name: str, role: str = "contract", **kw: object) -> Feature:
    return Feature(name, "key", kw.pop("source", CONFIG), role=role, **kw)  # type: ignore[arg-type]


FEATURES: tuple[Feature, ...] = (
    Feature("assistant_model", "method", UTILS, method="draft_model", since="4.29.0"),
    Feature("prompt_lookup_num_tokens", "method", CONFIG, method="ngram", since="4.37.0"),
    Feature("assistant_early_exit", "method", CONFIG, method="early_exit", since="4.47.0"),
    Feature(
        "assistant_model",
        "method",
        UTILS,
        method="mtp",
        since="5.8.0",
        note="a Gemma 4 assistant checkpoint (since 5.8.0), or use_mtp=True for the model's own MTP "
        "layers (since 5.14.0)",
    ),
    Feature("speculation_type", "method", CONFIG, since="5.15.0", role="refused", note="only 'dflash'"),
    _k("assistant_model", field="assets.name", since="4.29.0", takes_value=True),
    _k("num_assistant_tokens", field="speculation.num_speculative_tokens", since="4.35.0"),
    _k(
        "prompt_lookup_num_tokens", field="speculation.num_speculative_tokens", since="4.37.0", method="ngram"
    ),
    _k(
        "max_matching_ngram_size",
        field="speculation.params.prompt_lookup_max",
        since="4.39.0",
        method="ngram",
    ),
    _k(
        "assistant_early_exit",
        field="speculation.params.early_exit_layer",
        since="4.47.0",
        method="early_exit",
    ),
    _k("use_mtp", field="speculation.method", since="5.14.0", method="mtp", concept="mtp_own_layers"),
    _k(
        "assistant_model",
        field="assets.mtp_assistant",
        since="5.8.0",
        method="mtp",
        source=f"{UTILS} (Gemma4Assistant: SinglePositionMultiTokenCandidateGenerator)",
    ),
    _k(
        "tokenizer",
        field="compatibility.tokenizer.name",
        since="4.46.0",
        concept="uad",
        source=f"{UTILS} (universal assisted decoding)",
    ),
    _k(
        "assistant_tokenizer",
        field="speculation.params.heterogeneous_vocab",
        since="4.46.0",
        method="draft_model",
        source=f"{UTILS} (universal assisted decoding)",
    ),
    _k("do_sample", field="compatibility.decoding.modes"),
    _k(
        "num_assistant_tokens_schedule",
        "refused",
        since="4.35.0",
        note="heuristic schedules change the token count as acceptance goes",
    ),
    _k("assistant_confidence_threshold", "refused", since="4.45.0"),
    _k("assistant_lookbehind", "refused", since="4.47.0", default="10"),
    _k("target_lookbehind", "refused", since="4.47.0", default="10"),
    _k(
        "assistant_ensemble_weight",
        "refused",
        since="5.14.0",
        note="accepts against a target/draft mixture: lossy",
    ),
)

KNOWLEDGE = EngineKnowledge(
    engine="transformers",
    name="Transformers",
    scheme="pep440",
    releases=tuple(
        (v, f"transformers {v} wheel: generation/configuration_utils.py, generation/utils.py")
        for v in (
            "4.29.0",
            "4.35.0",
            "4.37.0",
            "4.39.0",
            "4.45.0",
            "4.46.0",
            "4.47.0",
            "5.8.0",
            "5.14.0",
            "5.15.0",
            "5.24.0",
        )
    ),
    features=FEATURES,
    notes=(
        "Transformers has no server: SpecPact's notation of the generate() call is "
        "`transformers-generate --model M key=value ...`; a pasted `model.generate(...)` imports too.",
        "prompt lookup matches n-grams from max_matching_ngram_size (default 2) down to 1: its "
        "minimum is always 1.",
    ),
    out_of_scope=(
        ("speculation_type='dflash'", "a block-diffusion drafter the format has no fields for yet"),
        ("MLPSpeculator assisted generation", "proposed in huggingface/transformers#37225, not merged"),
    ),
)
