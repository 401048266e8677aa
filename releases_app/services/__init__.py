"""Release transitions, one function each. All are keyword-only, run in one transaction
with the route and release rows locked, write their audit event in that transaction, and
raise kernel.errors.DomainError (409 for a transition the state refuses)."""

from releases_app.services.decisions import release_approve, release_cancel, release_reject
from releases_app.services.gate_verdict import release_conclude, releases_conclude_left_behind
from releases_app.services.proposals import (
    release_create,
    release_fail,
    release_gate_complete,
    release_start_benchmark,
)
from releases_app.services.rollback import release_rollback

__all__ = [
    "release_approve",
    "release_cancel",
    "release_conclude",
    "release_create",
    "release_fail",
    "release_gate_complete",
    "release_reject",
    "release_rollback",
    "release_start_benchmark",
    "releases_conclude_left_behind",
]
