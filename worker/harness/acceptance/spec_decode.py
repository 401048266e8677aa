"""The `spec_decode_*` counters vLLM and llama-server both export, differenced over a level.

Same meaning in both engines: per verification step (a "draft") the tokens drafted and
those accepted, and per draft position how often it was accepted. Only the prefix
differs (`vllm:`, `llamacpp:`); each engine's module cites where its names come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from worker.harness.acceptance.deltas import Restarted, counter_deltas
from worker.harness.acceptance.prometheus import Metrics
from worker.harness.results.speculation import SpeculationNotReported, SpeculationReported

Reading = SpeculationReported | SpeculationNotReported


@dataclass(frozen=True)
class CounterNames:
    drafts: str
    draft_tokens: str
    accepted_tokens: str
    per_position: str  # with a `position` label, "0" for the first drafted token

    def totals(self) -> tuple[str, str, str]:
        return (self.drafts, self.draft_tokens, self.accepted_tokens)


def names(prefix: str) -> CounterNames:
    return CounterNames(
        drafts=f"{prefix}spec_decode_num_drafts_total",
        draft_tokens=f"{prefix}spec_decode_num_draft_tokens_total",
        accepted_tokens=f"{prefix}spec_decode_num_accepted_tokens_total",
        per_position=f"{prefix}spec_decode_num_accepted_tokens_per_pos_total",
    )


def _per_position(before: Metrics, after: Metrics, name: str) -> list[int] | str | None:
    """Per-position deltas, None when the engine has no such counter, or why they are unusable."""
    got = after.by_label(name, "position")
    if not got:
        return None
    had = before.by_label(name, "position")
    try:
        positions = sorted(int(p) for p in got)
    except ValueError:
        return f"{name} has a non-numeric position label"
    deltas = counter_deltas(had, {str(pos): got.get(str(pos), 0.0) for pos in range(positions[-1] + 1)})
    if isinstance(deltas, Restarted):
        return f'{name}{{position="{deltas.counter}"}} went backwards'
    return [round(delta) for delta in deltas.values()]


def difference(before: Metrics | None, after: Metrics | None, n: CounterNames, source: str) -> Reading:
    """The level's speculation from counters read before and after it.

    A counter that went backwards means the engine restarted (or reset) during the level:
    what it counted before the restart is lost, so the level is "not reported" rather
    than a figure built on part of it."""
    if before is None or after is None:
        return SpeculationNotReported(reason="/metrics could not be read before and after the level")
    if any(name not in after for name in n.totals()):
        return SpeculationNotReported(reason=f"no {n.drafts} counter (speculation off, or metrics disabled)")
    got = counter_deltas({k: before.total(k) for k in n.totals()}, {k: after.total(k) for k in n.totals()})
    if isinstance(got, Restarted):
        return SpeculationNotReported(
            reason=f"{got.counter} went backwards during the level (the engine restarted): "
            "its counts are lost"
        )
    delta = {name: round(value) for name, value in got.items()}
    drafts, drafted, accepted = (delta[name] for name in n.totals())
    if drafts <= 0 or drafted <= 0:
        return SpeculationNotReported(reason="no drafts were made during the level")
    if accepted > drafted:
        return SpeculationNotReported(reason=f"inconsistent counters: more accepted than drafted ({source})")
    per_position = _per_position(before, after, n.per_position)
    if isinstance(per_position, str):
        return SpeculationNotReported(reason=f"{per_position} during the level (the engine restarted)")
    if per_position is not None and (sum(per_position) != accepted or max(per_position) > drafts):
        # Scraped between two updates of one step: totals and positions disagree; keep the totals.
        per_position = None
    return SpeculationReported(
        acceptance_rate=accepted / drafted,
        mean_acceptance_length=1 + accepted / drafts,
        drafts=drafts,
        draft_tokens=drafted,
        accepted_tokens=accepted,
        accepted_per_position=per_position,
        source=source,
    )
