"""The contract documents an advice run measures and hands over, built from the route's
active version: the same target, compatibility, lanes and measurement, with a candidate's
speculation (or none). Pure functions of documents; the contract's own validation judges
them (build_spec for the runs, contract_version_create for the draft)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from contracts_app.document import speculation_off
from contracts_app.document.engines import release_view

Json = dict[str, Any]
SCHEDULE_FIELD = "speculation.params.token_schedule"


def baseline_document(active: Json) -> Json:
    """The baseline arm: the active version with speculation off (the format's own
    `speculation_off`, as a rollback to speculation off builds it)."""
    return speculation_off(active)


def candidate_document(active: Json, candidate: Json) -> Json:
    """The active version running `candidate` (a stored candidate dict): its method, tokens
    and parameters, and the assets the operator named for it instead of the active ones
    (those belong to the active method). A switch-off batch size belongs to the active
    configuration too: the candidate is measured at every level, so it is left out."""
    out = copy.deepcopy(active)
    speculation: Json = {"method": candidate["method"], "num_speculative_tokens": candidate["tokens"]}
    if candidate.get("params"):
        speculation["params"] = copy.deepcopy(candidate["params"])
    out["speculation"] = speculation
    out["assets"] = copy.deepcopy(candidate.get("asset_entries") or [])
    batching = (out.get("compatibility") or {}).get("batching")
    if isinstance(batching, dict):
        batching.pop("speculation_off_above_batch_size", None)
    return out


def takes_token_schedule(engine: str, engine_release: str | None, method: str) -> bool:
    """Whether this engine release takes a per-batch-size token schedule for `method`: the
    engine's own table (contracts_app/document/engines: vLLM num_speculative_tokens_per_batch_size
    from 0.24.0, TensorRT-LLM draft_len_schedule), not a list kept here."""
    try:
        view = release_view(engine, engine_release)
    except KeyError:
        return False
    return bool(view.carriers(SCHEDULE_FIELD, method))


def token_schedule(steps: Sequence[Json], levels: Sequence[float], max_batch_size: int) -> list[Json]:
    """A recommendation's schedule (from concurrency L up, run these tokens) as the contract's
    `token_schedule` (up to batch size B, these tokens). Concurrency stands for the batch
    size. Each step reaches up to the highest level measured below the next step's start:
    between two measured levels nothing was measured, so the next step (fewer tokens, or
    none) holds there; the last step reaches the route's largest batch."""
    out: list[Json] = []
    for i, step in enumerate(steps):
        if i + 1 < len(steps):
            start = float(steps[i + 1]["from_level"])
            below = [lv for lv in levels if lv < start]
            up_to = int(max(below)) if below else 0
        else:
            up_to = max_batch_size
        if up_to < 1 or (out and up_to <= out[-1]["up_to_batch_size"]):
            continue
        out.append({"up_to_batch_size": up_to, "num_speculative_tokens": int(step["tokens"])})
    return out


def speculation_off_document(active: Json) -> Json:
    """The draft for "speculation off": the format's own variant, keeping the route's description."""
    out = speculation_off(active)
    if active.get("description"):
        out["description"] = active["description"]
    else:
        out.pop("description", None)
    return out
