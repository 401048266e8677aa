"""Question 6's live half: the acceptance watch on the route's endpoints, with the floor
each is held to ("prod-eu proposes the rollback when live acceptance stays below 0.52 —
80% of the 0.65 the benchmark measured — for 3 windows"), or why it can't fire."""

from __future__ import annotations

from dataclasses import dataclass

from contracts_app.models import ContractVersion
from dashboard_app.selectors.checklist.answers import join_words
from live_app.models import Endpoint
from live_app.selectors import acceptance_floor, acceptance_trigger, benchmark_acceptance


@dataclass(frozen=True)
class LiveTriggers:
    words: str  # "" when the route has neither a live trigger nor an endpoint
    can_fire: bool  # False: a trigger is written that nothing can act on
    endpoints: bool  # the route has endpoints watched against `version`


def live_triggers(version: ContractVersion, endpoints: list[Endpoint]) -> LiveTriggers:
    """`endpoints`: the route's (`live_app.selectors.endpoints_of`). The watch holds against
    `version` those expecting the active version or a release of it
    (live_app.services.probes records their samples against the version they expect)."""
    trigger = acceptance_trigger(version)
    watched = sorted(
        e.name for e in endpoints if e.expectation.is_active or e.expected_version_id == version.pk
    )
    names = join_words(watched)
    if trigger is None:
        if not watched:
            return LiveTriggers("", True, False)
        return LiveTriggers(
            f"No live trigger: the contract sets no acceptance_drop trigger, so the acceptance watch on "
            f"{names} proposes no rollback.",
            True,
            True,
        )
    ratio, windows = float(trigger["min_ratio"]), int(trigger.get("windows", 3))
    rule = f"live acceptance below {100 * ratio:.0f}% of the benchmark's for {windows} windows in a row"
    if not watched:
        return LiveTriggers(
            f"Live trigger ({rule}): nothing watches it, no endpoint of this route is registered.",
            False,
            False,
        )
    reference = benchmark_acceptance(version)
    floor = acceptance_floor(version, reference)
    if reference is None or floor is None:
        return LiveTriggers(
            f"Live trigger ({rule}) on {names}: it cannot fire, the approving benchmark of version "
            f"{version.number} measured no acceptance rate to hold the live one against.",
            False,
            True,
        )
    return LiveTriggers(
        f"Live trigger: the acceptance watch on {names} proposes the rollback when live acceptance "
        f"stays below {floor:.2f} ({100 * ratio:.0f}% of the {reference:.2f} the benchmark measured) "
        f"for {windows} windows in a row; an approver confirms it.",
        True,
        True,
    )
