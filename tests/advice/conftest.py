"""The advice tests' engine emulators stop when the session ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.advice import SERVERS


@pytest.fixture(autouse=True, scope="session")
def _stop_advice_engines() -> Iterator[None]:
    yield
    SERVERS.emulators.stop()
