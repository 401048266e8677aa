"""The rollout-gate token of these tests: scoped to the route, viewer role, these reads only."""

from __future__ import annotations

import pytest

from tests.support.actors import Caller
from tests.support.releases import ROUTE
from tests.support.rollouts import issue_gate_token


@pytest.fixture
def gate(db: None) -> Caller:
    return issue_gate_token([ROUTE])
