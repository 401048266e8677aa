"""List endpoints and pages read a pinned number of queries, the same for 1 or many rows
(no N+1)."""

from __future__ import annotations

from typing import Any

import pytest

from audit_app.checkpoints import verify_audit
from contracts_app.models import Route
from releases_app.services import release_cancel, release_create
from tests.support.actors import Caller
from tests.support.query_counts import assert_num_queries
from tests.support.releases import cosmetic_change

pytestmark = pytest.mark.django_db


def _more_releases(route: Route, proposer: Any, n: int) -> None:
    for i in range(n):
        release = release_create(
            route=route, candidate_version=cosmetic_change(route, f"w{i}").number, actor=proposer
        )
        release_cancel(release=release, actor=proposer, reason="only for counting")


@pytest.mark.parametrize(
    ("url", "queries", "with_new_events"),
    # The audit page also states the chain's health from the events after the stored mark
    # (audit_app/verification.py): it reads the mark, the newest event, the mark's event
    # (still the hash it had?) and the checkpoints to hold, with a key or without (a
    # checkpoint no configured key verifies is a break, so they are read); when events
    # came after the mark it also walks them and moves the mark on (one UPDATE), and when
    # none did it sends neither (the walk would read nothing, the UPDATE match no row).
    # The audit API pages by cursor: no count. The audit page also reads the user's role row
    # for the route scope (a scoped user sees only its routes' events).
    [
        ("/api/v1/releases/", 5, 5),
        ("/releases/", 5, 5),
        ("/api/v1/audit/", 4, 4),
        ("/audit/", 9, 11),
    ],
)
def test_list_queries_do_not_grow_with_rows(
    url: str, queries: int, with_new_events: int, route_v1: Route, proposer: Any, viewer: Any
) -> None:
    client = Caller("v", user=viewer).client()
    verify_audit()  # the full walk beat makes (audit-verify-full), which leaves the mark
    with assert_num_queries(queries):
        assert client.get(url).status_code == 200
    _more_releases(route_v1, proposer, 4)
    with assert_num_queries(with_new_events):
        assert client.get(url).status_code == 200
    with assert_num_queries(queries):  # the mark moved on: nothing new again
        assert client.get(url).status_code == 200
