"""Question 1's live half: what the route's endpoints run right now, from their last probe
("prod-eu conforms (probed 2 min ago); canary drifted: num_speculative_tokens 3 ≠ 5")."""

from __future__ import annotations

from dataclasses import replace

from contracts_app.models import Route
from dashboard_app.selectors.checklist.answers import Answer, Evidence
from dashboard_app.selectors.live import live_words
from live_app.models import Endpoint


def with_live(answer: Answer, route: Route, endpoints: list[Endpoint]) -> Answer:
    """The approved answer, then what is live. A drifted endpoint makes the answer partial:
    what runs is not what was approved."""
    words = live_words(route, endpoints)
    if words is None:
        return answer
    drifted = " drifted" in words
    evidence = Evidence("endpoints", "live endpoints", f"/api/v1/routes/{route.slug}/endpoints/")
    return replace(
        answer,
        answer=f"{answer.answer} Live: {words}.",
        status="partial" if drifted else answer.status,
        evidence=[*answer.evidence, evidence],
    )
