"""vLLM: `vllm serve MODEL … --speculative-config '{…}'`. The JSON keys are the fields of
`SpeculativeConfig` in the named release (vllm/config/speculative.py); render writes only
the keys that release has."""

from __future__ import annotations

import json
from typing import Any

from ..engines import asset_role
from ..rules_release import view_of
from ..schema import ContractDocument
from ..verification import spelling_of
from .base import ImportResult, RenderedConfig, common_notes, rendered
from .params_render import config_keys

ENGINE = "vllm"


def speculative_config(doc: ContractDocument) -> dict[str, Any]:
    spec, view = doc.speculation, view_of(doc)
    if spec.method == "none":
        return {}
    feature = view.method(spec.method)
    config: dict[str, Any] = {"method": feature.name if feature else spec.method}
    role = asset_role(spec.method)
    asset = doc.asset(role) if role else None
    if asset is not None:
        config["model"] = asset.name
        if asset.revision:
            config["revision"] = asset.revision
    config["num_speculative_tokens"] = spec.num_speculative_tokens
    p = spec.params
    if p is not None:
        if p.prompt_lookup_min is not None:
            config["prompt_lookup_min"] = p.prompt_lookup_min
        if p.prompt_lookup_max is not None:
            config["prompt_lookup_max"] = p.prompt_lookup_max
        if p.heterogeneous_vocab:
            config["use_heterogeneous_vocab"] = True
        if p.parallel_drafting:
            config["parallel_drafting"] = True
        if p.token_schedule:
            # vLLM wants inclusive (start, end, tokens) ranges; the contract lists upper ends.
            starts = [1] + [step.up_to_batch_size + 1 for step in p.token_schedule[:-1]]
            config["num_speculative_tokens_per_batch_size"] = [
                [start, step.up_to_batch_size, step.num_speculative_tokens]
                for start, step in zip(starts, p.token_schedule, strict=True)
            ]
    verifier = spelling_of(doc)
    if verifier is not None and verifier.value:
        config[verifier.name] = verifier.value  # rejection_sample_method (engines/verifiers.py)
    if p is not None and p.synthetic_acceptance_length is not None:
        config["synthetic_acceptance_length"] = p.synthetic_acceptance_length
    off = doc.compatibility.batching.speculation_off_above_batch_size
    if off is not None and view.concept("speculation_off_above") is not None:
        config["disable_by_batch_size"] = off  # only V0 releases (before 0.10.0) act on it
    config.update(config_keys(doc, view))
    return config


def render(doc: ContractDocument) -> RenderedConfig:
    target, tok = doc.target, doc.compatibility.tokenizer
    argv = ["vllm", "serve", target.model]
    if target.revision:
        argv += ["--revision", target.revision]
    if tok.name != target.model:
        argv += ["--tokenizer", tok.name]
    if tok.revision and (tok.name != target.model or tok.revision != target.revision):
        argv += ["--tokenizer-revision", tok.revision]
    config = speculative_config(doc)
    if config:
        argv += ["--speculative-config", json.dumps(config)]
    argv += ["--max-num-seqs", str(doc.compatibility.batching.max_batch_size)]
    notes = common_notes(doc, "vLLM")
    notes.append(
        f"vLLM has no server-side concurrency cap: keep concurrency at or below "
        f"{doc.compatibility.max_concurrency} in front of it"
    )
    return rendered(ENGINE, argv, config, notes)


def import_argv(argv: list[str] | str, engine_version: str | None = None) -> ImportResult:
    from .vllm_import import import_argv as run

    return run(argv, engine_version)
