"""Shared fixtures: the named actors of permission tests and API clients for them.

Actors: proposer (operator), operator, approver, second_approver, viewer, admin
(superuser), pipeline (an operator token scoped to the `contract-summaries` route) and
outsider (an approver token scoped to another route, `elsewhere`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.actors import PIPELINE_ROUTE, Caller
from tests.support.factories import make_token, make_user
from tests.support.launcher import emulator_factory

# A factory of engine emulators (tests/support/engine_emulator): emulator("--shape", "tgi", …);
# all of a module's stop after it.
emulator = emulator_factory("module")


@pytest.fixture(autouse=True, scope="session")
def _flush_past_audit_trigger() -> Iterator[None]:
    """The audit table refuses TRUNCATE, which is how Django empties the database after a
    `transaction=True` test. Only that flush runs as a replica (`SET LOCAL
    session_replication_role`, superuser-only, ends with the flush's own transaction),
    which skips ordinary triggers; every test still runs with the trigger on."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.execute_sql_flush

    def flush(self: DatabaseOperations, sql_list: list[str]) -> None:
        original(self, ["SET LOCAL session_replication_role = replica", *sql_list])

    DatabaseOperations.execute_sql_flush = flush  # type: ignore[method-assign]
    yield
    DatabaseOperations.execute_sql_flush = original  # type: ignore[method-assign]


@pytest.fixture
def proposer(db: None) -> Any:
    return make_user("pat-proposer", "operator")


@pytest.fixture
def operator(db: None) -> Any:
    return make_user("olga-operator", "operator")


@pytest.fixture
def approver(db: None) -> Any:
    return make_user("alice-approver", "approver")


@pytest.fixture
def second_approver(db: None) -> Any:
    return make_user("bob-approver", "approver")


@pytest.fixture
def viewer(db: None) -> Any:
    return make_user("vera-viewer", "viewer")


@pytest.fixture
def admin(db: None) -> Any:
    return make_user("ada-admin", None, is_superuser=True, is_staff=True)


@pytest.fixture
def pipeline(db: None) -> Caller:
    user = make_user("ci-pipeline", "operator")
    issued = make_token(user, "operator", [PIPELINE_ROUTE])
    return Caller("pipeline", user=user, key=issued.key, token=issued.token)


@pytest.fixture
def outsider(db: None) -> Caller:
    user = make_user("oscar-outsider", "approver")
    issued = make_token(user, "approver", ["elsewhere"])
    return Caller("outsider", user=user, key=issued.key, token=issued.token)
