"""An imported command read on the release it was written for. The words a command uses
date it (`words.dated` picks the newest release range that accepts them all); the import
records the newest release SpecPact has read in that range as `target.engine_version`,
and says what the release SpecPact knows best needs instead: the same contract rendered
for it, when it can run there, else why not. Those lines are `unresolved` entries at the
path `upgrade`, so an ImportResult keeps its shape."""

from __future__ import annotations

import copy
from typing import Any

from ..engines.release import ReleaseView
from ..errors import ContractError, FieldError

UPGRADE = "upgrade"


def newest_read(view: ReleaseView) -> str:
    """The newest release the table has read that the view's rules cover: the view's range
    runs from its release to the next boundary of the table."""
    k = view.knowledge
    end = next((start for start, _ in k.ranges() if start > view.version), None)
    inside = [
        parsed
        for text, _ in k.releases
        if (parsed := k.version(text)) is not None
        and parsed >= view.version
        and (end is None or parsed < end)
    ]
    return str(max(inside)) if inside else str(view.version)


def upgrade(document: dict[str, Any], view: ReleaseView) -> list[FieldError]:
    """What the newest release needs instead: the contract's render on it, or the rules it
    breaks there. Nothing when the command already reads as the newest release."""
    from ..validation import validate_document
    from . import render

    k = view.knowledge
    if view.version >= k.newest:
        return []
    moved = copy.deepcopy(document)
    moved["target"].pop("engine_version", None)  # read as the newest release
    label = k.label(k.newest)
    try:
        shell = render(validate_document(moved)).shell
    except ContractError as exc:
        why = "; ".join(f"{e.path}: {e.message}" for e in exc.errors[:4])
        return [FieldError(UPGRADE, f"on {label} this contract does not validate as it stands: {why}")]
    return [FieldError(UPGRADE, f"on {label} the same contract renders as: {shell}")]


def batch_cutoff(
    speculation: dict[str, Any], off: int | None, max_batch: int | None, view: ReleaseView, sk: Any
) -> int | None:
    """vLLM's removed `disable_by_batch_size: N` on the release the command is read as: the
    contract's cut-off where the release acts on it (the V0 engine, before 0.10.0); where it
    no longer does and the release has `num_speculative_tokens_per_batch_size` (0.24.0,
    vllm-project/vllm#32374), the same intent as a token schedule, 0 tokens above N;
    otherwise left out with the reason (accepted and unused from 0.10.0, refused from 0.17.0,
    vllm-project/vllm#35060). Returns the cut-off the contract keeps, if any."""
    path = "compatibility.batching.speculation_off_above_batch_size"
    if off is None or view.concept("speculation_off_above") is not None:
        return off
    tokens = speculation.get("num_speculative_tokens")
    params = speculation.setdefault("params", {})
    if not view.has("num_speculative_tokens_per_batch_size") or not isinstance(tokens, int):
        if not params:
            speculation.pop("params")
        sk.say(
            path,
            f"disable_by_batch_size {off} is left out: {view.label} does not act on it (the V0 engine "
            "went in 0.10.0; the key is refused from 0.17.0, vllm-project/vllm#35060) and has no "
            "num_speculative_tokens_per_batch_size (0.24.0) to say it with",
        )
        return None
    if "token_schedule" in params:
        sk.say(path, f"disable_by_batch_size {off} is left out: the command gives a token schedule too")
        return None
    top = max_batch if max_batch and max_batch > off else 1_000_000  # schema.MAX_COUNT
    params["token_schedule"] = [
        {"up_to_batch_size": off, "num_speculative_tokens": tokens},
        {"up_to_batch_size": top, "num_speculative_tokens": 0},
    ]
    sk.say(
        "speculation.params.token_schedule",
        f"from disable_by_batch_size {off}: {view.label} refuses or ignores that key, so speculation is "
        f"off above batch size {off} as a schedule (num_speculative_tokens_per_batch_size, "
        "vllm-project/vllm#32374)"
        + (
            "" if top == max_batch else "; its last step ends at 1,000,000: set it to the route's batch limit"
        ),
    )
    return None
