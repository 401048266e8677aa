"""Pinned query counts, so an N+1 (or any new query) fails the test that measures it.

After NetBox's ``utilities/testing/query_counts.py`` (netbox-community/netbox), with the
count written beside the test instead of in a baseline file:

    with assert_num_queries(6):
        assert client.get("/releases/").status_code == 200

On a mismatch the failure lists every query the block ran, numbered.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections
from django.test.utils import CaptureQueriesContext


@contextmanager
def assert_num_queries(expected: int, *, using: str = "default") -> Iterator[CaptureQueriesContext]:
    """The block runs exactly ``expected`` queries on the ``using`` database."""
    with CaptureQueriesContext(connections[using]) as captured:
        yield captured
    actual = len(captured.captured_queries)
    if actual != expected:
        listing = "\n".join(f"  {i}. {q['sql']}" for i, q in enumerate(captured.captured_queries, 1))
        raise AssertionError(f"{actual} queries ran, {expected} expected:\n{listing}")
