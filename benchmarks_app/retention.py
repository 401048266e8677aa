"""Raw samples dropped by age (issue 26, point 2): what a pruned result keeps, and what
every reader of raw samples answers once they are gone.

A result's raw samples are the per-request records of each level (`levels[i].requests`
of each arm): ~95% of a payload (a 184 kB generated result keeps ~6 kB without them). The
prune (`benchmarks_app.services.retention`) takes them out of the stored payload and
stamps `RunResult.samples_pruned_at`; everything else stays: the rest of the payload (the
workload, engine, memory and each level's own scalars: what the checklist reads), the
digest taken at upload, the aggregates the pages draw from, the gate's verdict on the
release, and the audit trail. Readers of samples (the result and CSV endpoints, the gate)
ask `samples_gone` and say so in words instead of reading what is not there.
"""

from __future__ import annotations

from typing import Any

from benchmarks_app.models import RunResult
from kernel.errors import Gone

SETTING = "RAW_SAMPLES_RETENTION_DAYS"


def without_samples(payload: Any) -> tuple[Any, int]:
    """(the payload without each level's `requests`, how many request records it held).
    Arms that aren't harness results (no `levels` list) and every other key pass through."""
    if not isinstance(payload, dict):
        return payload, 0
    removed = 0
    out: dict[str, Any] = {}
    for key, arm in payload.items():
        levels = arm.get("levels") if isinstance(arm, dict) else None
        if not isinstance(levels, list):
            out[key] = arm
            continue
        kept = []
        for level in levels:
            if isinstance(level, dict) and "requests" in level:
                requests = level["requests"]
                removed += len(requests) if isinstance(requests, list) else 0
                level = {k: v for k, v in level.items() if k != "requests"}
            kept.append(level)
        out[key] = {**arm, "levels": kept}
    return out, removed


def pruned_words(run_id: int, result: RunResult) -> str:
    when = result.samples_pruned_at
    day = f"{when:%Y-%m-%d}" if when is not None else "an earlier day"
    return (
        f"The raw samples of run {run_id} were pruned on {day} by the retention setting "
        f"({SETTING}): its aggregates, digest and the gate's verdict are kept, and the release "
        "page draws its figures from the aggregates."
    )


def samples_gone(run_id: int, result: RunResult) -> Gone | None:
    """The 410 a reader of raw samples raises for a pruned result; None while it has them."""
    if result.samples_pruned_at is None:
        return None
    return Gone(
        pruned_words(run_id, result),
        code="samples_pruned",
        extensions={
            "samples_pruned_at": result.samples_pruned_at.isoformat(),
            "retention_setting": SETTING,
            "digest": result.digest,
        },
    )
