"""Fixtures for the harness tests: the reference server, an engine emulator in its own
process (tests/support/engine_emulator)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.launcher import REFERENCE, Emulator


@pytest.fixture(scope="module")
def reference_server(emulator: Callable[..., Emulator]) -> Callable[..., Emulator]:
    """A factory: ``reference_server("--ttft-ms", "5")`` is the reference schedule with
    those flags changed; all are stopped after the module."""

    def make(*args: str, **kwargs: Any) -> Emulator:
        return emulator(*REFERENCE, *args, **kwargs)

    return make
