"""Questions 2, 3 and 4: answered from the active contract alone."""

from __future__ import annotations

from typing import Any

from contracts_app.document.engines import METHOD_INFO
from contracts_app.models import ContractVersion, Route
from dashboard_app.selectors.checklist.answers import QUESTIONS, Answer, field_evidence, join_words


def q2_dependencies(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    spec = doc.get("speculation") or {}
    method = str(spec.get("method", "none"))
    params = spec.get("params") or {}
    assets = doc.get("assets") or []
    evidence = [field_evidence(route, version, "speculation", "speculation")]
    if assets:
        evidence.append(field_evidence(route, version, "assets", "assets"))
    dependency = METHOD_INFO[method].dependency if method in METHOD_INFO else None
    if dependency:
        if not assets:
            return Answer(
                QUESTIONS[1],
                f"Yes, {dependency}, but the contract lists no asset.",
                "missing",
                evidence,
            )
        described = [_asset_words(a) for a in assets]
        unpinned = [a["name"] for a in assets if not a.get("revision") and not a.get("digest")]
        text = f"Yes: {dependency}: {join_words(described)}."
        if unpinned:
            text += f" Not pinned to a revision or digest: {join_words(unpinned)}."
        return Answer(QUESTIONS[1], text, "partial" if unpinned else "documented", evidence)
    if method == "ngram":
        lo, hi = params.get("prompt_lookup_min"), params.get("prompt_lookup_max")
        window = f" (matching {lo} to {hi} tokens)" if lo and hi else ""
        text = (
            "No second model. It depends on prompt-lookup heuristics: drafts are n-grams "
            f"copied from the prompt{window}."
        )
    elif method == "suffix":
        text = "No second model. It depends on suffix-tree heuristics over the prompt and earlier outputs."
    elif method == "mtp":
        text = "No separate model: the target's own multi-token-prediction layers draft."
    elif method == "dspark":  # its drafter may ship inside the target's checkpoint (vLLM, issue 23)
        text = "No separate model: the DSpark drafter's weights ship inside the target's checkpoint."
    elif method == "early_exit":
        layer = params.get("early_exit_layer", "?")
        text = f"No second model: an early layer of the target drafts (layer {layer})."
    else:
        text = "No: speculation is off, the route depends on the target model alone."
    return Answer(QUESTIONS[1], text, "documented", evidence)


def _asset_words(asset: dict[str, Any]) -> str:
    pin = asset.get("revision") or asset.get("digest") or "unpinned"
    size = f", {asset['size_bytes'] / 1e9:.2f} GB" if asset.get("size_bytes") else ""
    return f"{asset.get('role')} {asset.get('name')} @ {str(pin)[:12]}{size}"


def _token_schedule_text(schedule: list[dict[str, int]]) -> str:
    """`[{up_to_batch_size: 8, num_speculative_tokens: 4}, {64, 0}]` → "speculative tokens
    by batch size: 4 up to batch 8, none up to batch 64"."""
    steps = [
        f"{step['num_speculative_tokens'] or 'none'} up to batch {step['up_to_batch_size']}"
        for step in schedule
    ]
    return "speculative tokens by batch size: " + ", ".join(steps)


def q3_compatibility(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    compat = doc.get("compatibility") or {}
    tok = compat.get("tokenizer") or {}
    batching = compat.get("batching") or {}
    decoding = compat.get("decoding") or {}
    gaps = []
    pin = tok.get("revision") or tok.get("digest")
    tok_text = f"tokenizer {tok.get('name')}" + (
        f" @ {str(pin)[:12]}" if pin else " (not pinned to a revision)"
    )
    if not pin:
        gaps.append("the tokenizer is not pinned")
    drafts = [a for a in doc.get("assets") or [] if a.get("role") == "draft"]
    for draft in drafts:
        if not draft.get("tokenizer"):
            gaps.append(f"the draft {draft.get('name')} names no tokenizer to check against the target's")
    if drafts and not gaps:
        tok_text += "; the draft's tokenizer is named and checked against it"
    limits = [f"batches up to {batching.get('max_batch_size')}"]
    if batching.get("speculation_off_above_batch_size"):
        limits.append(f"speculation off above batch size {batching['speculation_off_above_batch_size']}")
    schedule = ((doc.get("speculation") or {}).get("params") or {}).get("token_schedule")
    if schedule:
        limits.append(_token_schedule_text(schedule))
    limits.append(f"at most {compat.get('max_concurrency')} concurrent requests")
    modes = " and ".join(decoding.get("modes") or [])
    temp = (
        f" (temperature ≤ {decoding['temperature_max']:g})"
        if decoding.get("temperature_max") is not None
        else ""
    )
    text = f"Yes: {tok_text}. Batching: {join_words(limits)}. Decoding: {modes}{temp}."
    if gaps:
        text = f"Partly: {join_words(gaps)}. " + text.removeprefix("Yes: ")
    return Answer(
        QUESTIONS[2],
        text,
        "partial" if gaps else "documented",
        [field_evidence(route, version, "compatibility", "compatibility")],
    )


def q4_lanes(route: Route, version: ContractVersion, doc: dict[str, Any]) -> Answer:
    lanes = doc.get("lanes") or {}
    allowed, excluded = list(lanes.get("allowed") or []), list(lanes.get("excluded") or [])
    text = f"Approved for {join_words(allowed) or 'no lane'}"
    text += f"; excluded: {join_words(excluded)}." if excluded else "; no lane is explicitly excluded."
    return Answer(
        QUESTIONS[3],
        text,
        "documented" if allowed else "missing",
        [field_evidence(route, version, "lanes", "lanes")],
    )
