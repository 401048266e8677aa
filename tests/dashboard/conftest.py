"""Fixtures for the dashboard pages: a signed-in viewer, and a release whose benchmark
really ran (tests/support/benchmarked.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from releases_app.models import Release
from tests.support.advice import SERVERS as ADVICE_SERVERS
from tests.support.benchmarked import SERVERS, benchmarked_release


@pytest.fixture(scope="session", autouse=True)
def _stop_engine_servers() -> Iterator[None]:
    yield
    SERVERS.stop()
    ADVICE_SERVERS.emulators.stop()


@pytest.fixture
def signed_in(viewer: Any) -> Client:
    client = Client()
    client.force_login(viewer)
    return client


@pytest.fixture
def benchmarked(proposer: Any, approver: Any) -> Release:
    """contract-summaries: v1 (speculation off) active, release of v2 (n-gram) awaiting
    review with the gate's verdict from a real benchmark of two lanes."""
    return benchmarked_release(proposer=proposer, approver=approver)
